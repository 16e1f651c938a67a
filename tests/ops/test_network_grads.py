"""The grad makers of the dense ops, joined by append_backward in one network, against
finite differences of the whole loss with respect to every parameter."""

import numpy as np

import paddle_ir as pir

rng = np.random.RandomState(8)


def _network():
    main, startup = pir.Program(), pir.Program()
    main.random_seed = startup.random_seed = 3
    with pir.program_guard(main, startup):
        x = pir.layers.data("x", [-1, 4], dtype="float64")
        aux = pir.layers.data("aux", [-1, 2], dtype="float64")  # needs no gradient
        label = pir.layers.data("label", [-1, 1], dtype="int64")
        h = pir.layers.fc(x, 5, act="tanh")
        joined = pir.layers.reshape(pir.layers.concat([h, aux], axis=1), [0, -1])
        logits = pir.layers.fc(joined, 3)
        fused = pir.layers.mean(pir.layers.softmax_with_cross_entropy(logits, label))
        probs = pir.layers.softmax(pir.layers.matmul(logits, logits, transpose_y=True))
        picked = pir.layers.reduce_mean(pir.layers.cross_entropy(probs, label), dim=0)
        extra = pir.layers.reduce_sum(pir.layers.square(pir.layers.sigmoid(h)), dim=[0, 1])
        loss = fused + pir.layers.mean(picked) + extra * 0.1
    return main, startup, loss


def test_parameter_gradients_match_finite_differences():
    main, startup, loss = _network()
    forward_only = main.clone()
    with pir.program_guard(main, startup):
        params_grads = pir.append_backward(loss)
    assert sorted(p.name for p, _ in params_grads) == ["fc_0.b_0", "fc_0.w_0", "fc_1.b_0",
                                                       "fc_1.w_0"]
    assert "aux@GRAD" not in main.global_block().vars

    scope = pir.Scope()
    exe = pir.Executor()
    exe.run(startup, scope=scope)
    feed = {"x": rng.randn(3, 4), "aux": rng.randn(3, 2),
            "label": np.array([[0], [2], [1]], np.int64)}
    analytic = exe.run(main, feed=feed, fetch_list=[g for _, g in params_grads], scope=scope)

    def loss_value():
        (value,) = exe.run(forward_only, feed=feed, fetch_list=[loss], scope=scope)
        return float(value[0])

    eps = 1e-6
    for (param, _), got in zip(params_grads, analytic, strict=True):
        value = scope.find_var(param.name).get_tensor().numpy()
        flat = value.reshape(-1)
        numeric = np.zeros_like(flat)
        for j in range(flat.size):
            orig = flat[j]
            flat[j] = orig + eps
            plus = loss_value()
            flat[j] = orig - eps
            minus = loss_value()
            flat[j] = orig
            numeric[j] = (plus - minus) / (2 * eps)
        np.testing.assert_allclose(got.reshape(-1), numeric, rtol=1e-5, atol=1e-7,
                                   err_msg=param.name)
