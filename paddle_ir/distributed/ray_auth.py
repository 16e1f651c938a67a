"""Ray's token authentication for a driver that joins a cluster: the token file, and a probe.

Ray (2.52 and later) checks a shared token on every gRPC and HTTP entry point when
RAY_AUTH_MODE=token is set on a node; a driver sends the token it finds in
RAY_AUTH_TOKEN, the file RAY_AUTH_TOKEN_PATH names, or ~/.ray/auth_token. A cluster
started without the mode checks nothing: anyone who reaches its ports runs code on
it. `probe` asks the cluster's GCS one harmless question (its cluster id) without a
token, and with one, before `ray.init`, so that a driver can say at once that a token
is required, or that it is wrong, or that the cluster lets anyone in; Ray itself
retries for 20 s and then blames the address.
"""

from __future__ import annotations

import os
import stat

from paddle_ir.distributed.server import DistributedError

MODE_VAR, PATH_VAR, TOKEN_VAR = "RAY_AUTH_MODE", "RAY_AUTH_TOKEN_PATH", "RAY_AUTH_TOKEN"
_TOKEN_MAX_BYTES = 4096
_CHMOD_HINT = "chmod 600 the token file (Ray writes ~/.ray/auth_token readable by everyone)"


def read_token_file(path: str) -> str:
    """The token in `path`: a regular file, non-empty, readable by its owner alone."""
    path = os.fspath(path)
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NOCTTY", 0))
    except OSError as e:
        raise DistributedError(f"auth token file {path!r}: cannot open it ({e.strerror})",
                               hint="copy the cluster's token file here (mode 0600)") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise DistributedError(f"auth token file {path!r} is not a regular file")
        if info.st_mode & 0o077:
            raise DistributedError(f"auth token file {path!r} is readable by others (mode "
                                   f"{stat.S_IMODE(info.st_mode):04o}); whoever reads it can "
                                   "run code on the cluster", hint=_CHMOD_HINT)
        data = os.read(fd, _TOKEN_MAX_BYTES + 1)
    finally:
        os.close(fd)
    if len(data) > _TOKEN_MAX_BYTES:
        raise DistributedError(f"auth token file {path!r} holds more than {_TOKEN_MAX_BYTES} "
                               "bytes: not a Ray token (`ray get-auth-token --generate` writes "
                               "one line)")
    try:
        token = data.decode("ascii").strip()
    except UnicodeDecodeError:
        token = ""
    if not token or any(c.isspace() or not c.isprintable() for c in token):
        raise DistributedError(f"auth token file {path!r} does not hold a token (one line of "
                               "printable characters, as `ray get-auth-token --generate` "
                               "writes it)")
    return token


def use_token_file(path: str) -> str:
    """Token mode for this process and what it spawns, with the token in `path`."""
    token = read_token_file(path)
    os.environ[MODE_VAR] = "token"
    os.environ[PATH_VAR] = os.path.abspath(path)
    os.environ.pop(TOKEN_VAR, None)  # it would win over the file
    from ray._private.authentication.authentication_token_setup import _enable_token_auth
    from ray._raylet import AuthenticationTokenLoader

    _enable_token_auth()  # Ray's config is cached at import: refresh it
    AuthenticationTokenLoader.instance().reset_cache()
    return token


ACCEPTED, TOKEN_REQUIRED, TOKEN_REFUSED = "accepted", "token required", "token refused"


def probe(address: str, token: str | None, timeout: float = 10.0) -> str:
    """How the GCS at `address` answers a call carrying `token` (None: no token)."""
    import grpc
    from ray.core.generated import gcs_service_pb2, gcs_service_pb2_grpc

    metadata = [("authorization", f"Bearer {token}")] if token else []
    with grpc.insecure_channel(address) as channel:
        stub = gcs_service_pb2_grpc.NodeInfoGcsServiceStub(channel)
        try:
            stub.GetClusterId(gcs_service_pb2.GetClusterIdRequest(), timeout=timeout,
                              metadata=metadata)
        except grpc.RpcError as e:
            if e.code() == grpc.StatusCode.UNAUTHENTICATED:
                return TOKEN_REFUSED if token else TOKEN_REQUIRED
            raise DistributedError(f"cannot join the Ray cluster at {address!r}: its GCS did "
                                   f"not answer ({e.code().name}: {e.details()})",
                                   hint="check the address (HOST:PORT of the cluster's GCS) "
                                        "and that the cluster is running") from None
    return ACCEPTED
