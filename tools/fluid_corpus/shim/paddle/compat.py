"""Paddle's `paddle.compat` text helpers (Python 2/3 bridging), as Fluid 1.x programs call them."""


def to_text(obj, encoding="utf-8", inplace=False):
    if isinstance(obj, bytes):
        return obj.decode(encoding)
    if isinstance(obj, list):
        return [to_text(o, encoding) for o in obj]
    if isinstance(obj, set):
        return {to_text(o, encoding) for o in obj}
    return obj


def to_bytes(obj, encoding="utf-8", inplace=False):
    if isinstance(obj, str):
        return obj.encode(encoding)
    if isinstance(obj, list):
        return [to_bytes(o, encoding) for o in obj]
    return obj


def round(x, d=0):  # noqa: A001 - Paddle's name
    import builtins

    return builtins.round(x, d)


def floor_division(x, y):
    return x // y


long_type = int
int_type = int
