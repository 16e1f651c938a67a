"""movielens (ml-1m): [user_id, gender_id, age_id, job_id, movie_id, category_ids,
title_ids, [score]]; the score is a function of the user's and the movie's ids."""

from paddle.dataset.common import reader_of, rng, samples

age_table = [1, 18, 25, 35, 45, 50, 56]
_USERS, _MOVIES, _JOBS, _CATEGORIES, _TITLE_WORDS = 6040, 3952, 21, 18, 5175  # ml-1m's


class MovieInfo:
    def __init__(self, index, categories, title):
        self.index, self.categories, self.title = index, categories, title

    def value(self):
        return [self.index, [c for c in self.categories], [w for w in self.title_ids]]


class UserInfo:
    def __init__(self, index, gender, age, job_id):
        self.index, self.is_male, self.age, self.job_id = index, gender == 0, age, job_id

    def value(self):
        return [self.index, 0 if self.is_male else 1, self.age, self.job_id]


def max_user_id():
    return _USERS


def max_movie_id():
    return _MOVIES


def max_job_id():
    return _JOBS - 1


def movie_categories():
    return {f"c{i}": i for i in range(_CATEGORIES)}


def get_movie_title_dict():
    return {f"t{i}": i for i in range(_TITLE_WORDS)}


def _movies():
    g = rng("movies")
    out = {}
    for i in range(1, _MOVIES + 1):
        info = MovieInfo(i, [int(c) for c in g.integers(0, _CATEGORIES, size=2)], f"movie {i}")
        info.title_ids = [int(w) for w in g.integers(0, _TITLE_WORDS, size=int(g.integers(1, 5)))]
        out[i] = info
    return out


def _users():
    g = rng("users")
    return {i: UserInfo(i, int(g.integers(0, 2)), int(g.integers(0, len(age_table))),
                        int(g.integers(0, _JOBS))) for i in range(1, _USERS + 1)}


def movie_info():
    return _movies()


def user_info():
    return _users()


def _pool(name, n):
    g = rng("movielens" + name)
    movies, users = _movies(), _users()
    out = []
    for _ in range(n):
        u = users[int(g.integers(1, _USERS + 1))]
        m = movies[int(g.integers(1, _MOVIES + 1))]
        score = float(1 + (u.index + m.index) % 5)
        out.append(u.value() + m.value() + [[score]])
    return out


def train():
    return reader_of(_pool("train", samples()))


def test():
    return reader_of(_pool("test", samples() // 4))
