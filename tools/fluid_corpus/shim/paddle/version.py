"""paddle.version as a Paddle 1.7.2 CPU build reports it."""

full_version = "1.7.2"
major = "1"
minor = "7"
patch = "2"
rc = "0"
istaged = True
commit = "unknown"
with_mkl = "OFF"


def show():
    print(f"full_version: {full_version}")


def mkl():
    return with_mkl
