"""Ray token auth for a joining driver: the token file, the GCS probe, what join_cluster refuses.

The probe and the refusals are checked against a stand-in GCS (a gRPC server answering
NodeInfoGcsService.GetClusterId as Ray's does, with or without a token check), so no
Ray cluster starts here; tests/distributed/test_multihost.py joins real ones.
"""

import os
from concurrent import futures

import pytest

from paddle_ir.distributed import DistributedError

ray = pytest.importorskip("ray")  # the optional extra paddle-ir[distributed]; CI installs it
import grpc  # noqa: E402  (Ray's dependency)
from ray.core.generated import gcs_service_pb2, gcs_service_pb2_grpc  # noqa: E402

from paddle_ir.distributed import ray_auth, ray_cluster  # noqa: E402

TOKEN = "0123456789abcdef0123456789abcdef"


class _Gcs(gcs_service_pb2_grpc.NodeInfoGcsServiceServicer):
    def __init__(self, token):
        self.token = token

    def GetClusterId(self, request, context):  # noqa: N802 - the gRPC method's name
        if self.token is not None and \
                dict(context.invocation_metadata()).get("authorization") != f"Bearer {self.token}":
            context.abort(grpc.StatusCode.UNAUTHENTICATED,
                          "InvalidAuthToken: Authentication token is missing or incorrect")
        return gcs_service_pb2.GetClusterIdReply()


@pytest.fixture(params=[None, TOKEN], ids=["open", "token"])
def gcs(request):
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=2))
    gcs_service_pb2_grpc.add_NodeInfoGcsServiceServicer_to_server(_Gcs(request.param), server)
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    yield f"127.0.0.1:{port}", request.param
    server.stop(None)


@pytest.fixture
def token_env(monkeypatch):
    """use_token_file sets Ray's token mode for the process: undo it for the other tests."""
    from ray._raylet import AuthenticationTokenLoader, Config

    for var in (ray_auth.MODE_VAR, ray_auth.PATH_VAR, ray_auth.TOKEN_VAR):
        monkeypatch.delenv(var, raising=False)
    yield
    monkeypatch.undo()
    Config.initialize("")
    AuthenticationTokenLoader.instance().reset_cache()


def _token_file(tmp_path, text=TOKEN, mode=0o600):
    path = tmp_path / "token"
    path.write_text(text)
    path.chmod(mode)
    return str(path)


def test_a_token_file_must_be_private_regular_and_hold_one_token(tmp_path):
    assert ray_auth.read_token_file(_token_file(tmp_path, TOKEN + "\n")) == TOKEN
    with pytest.raises(DistributedError, match=r"(?s)readable by others \(mode 0644\).*chmod 600"):
        ray_auth.read_token_file(_token_file(tmp_path, mode=0o644))
    with pytest.raises(DistributedError, match="does not hold a token"):
        ray_auth.read_token_file(_token_file(tmp_path, ""))
    with pytest.raises(DistributedError, match="does not hold a token"):
        ray_auth.read_token_file(_token_file(tmp_path, "two words"))
    with pytest.raises(DistributedError, match="more than 4096 bytes"):
        ray_auth.read_token_file(_token_file(tmp_path, "x" * 5000))
    with pytest.raises(DistributedError, match="not a regular file"):
        ray_auth.read_token_file(str(tmp_path))
    with pytest.raises(DistributedError, match="cannot open it"):
        ray_auth.read_token_file(str(tmp_path / "missing"))
    os.symlink(_token_file(tmp_path), tmp_path / "link")
    with pytest.raises(DistributedError, match="cannot open it"):
        ray_auth.read_token_file(str(tmp_path / "link"))  # a link is not followed
    (tmp_path / "bin").write_bytes(b"\xff\xfe")
    (tmp_path / "bin").chmod(0o600)
    with pytest.raises(DistributedError, match="does not hold a token"):
        ray_auth.read_token_file(str(tmp_path / "bin"))


def test_use_token_file_puts_the_driver_in_token_mode(tmp_path, token_env):
    from ray._private.authentication.authentication_utils import is_token_auth_enabled

    os.environ[ray_auth.TOKEN_VAR] = "another"  # it would win over the file: dropped
    path = _token_file(tmp_path)
    assert ray_auth.use_token_file(path) == TOKEN
    assert os.environ[ray_auth.MODE_VAR] == "token"
    assert os.environ[ray_auth.PATH_VAR] == path
    assert ray_auth.TOKEN_VAR not in os.environ
    assert is_token_auth_enabled()


def test_the_probe_tells_an_open_cluster_from_one_that_wants_a_token(gcs):
    address, token = gcs
    if token is None:
        assert ray_auth.probe(address, None) == ray_auth.ACCEPTED
    else:
        assert ray_auth.probe(address, None) == ray_auth.TOKEN_REQUIRED
        assert ray_auth.probe(address, "wrong") == ray_auth.TOKEN_REFUSED
        assert ray_auth.probe(address, token) == ray_auth.ACCEPTED


def test_join_refuses_before_ray_starts(gcs, tmp_path, token_env, monkeypatch):
    """As if the stand-in GCS were on another machine (no loopback exception)."""
    address, token = gcs
    monkeypatch.setattr(ray_cluster, "_LOOPBACK", set())
    if token is None:
        with pytest.raises(DistributedError, match="accepts calls without a token") as e:
            ray_cluster.join_cluster(address)
        assert "--insecure-cluster" in str(e.value)
        with pytest.raises(DistributedError, match="accepts calls without a token"):
            ray_cluster.join_cluster(address, _token_file(tmp_path))
    else:
        with pytest.raises(DistributedError, match="(?s)requires an auth token, and none was "
                                                   "given.*--auth-token-file"):
            ray_cluster.join_cluster(address)
        with pytest.raises(DistributedError, match="refused the token in .*not this "
                                                   "cluster's token"):
            ray_cluster.join_cluster(address, _token_file(tmp_path, "wrong"))
    assert not ray.is_initialized()
