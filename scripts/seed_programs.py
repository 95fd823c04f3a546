"""The Fusebox seed programs in jax: the functions scripts/make_examples.py lowers into
assets/examples/ and scripts/make_dumps.py runs into tests/data/xla_dumps/. Import this
after XLA_FLAGS is set: it imports jax.
"""
import jax
import jax.numpy as jnp
from jax import lax

f32 = jnp.float32


# ---------------------------------------------------------------- reduce_sum
def reduce_sum(x, y, z):
    return jnp.sum(x + y * z)


# ----------------------------------------------------------- running_example
def running_example(x, y):
    return jnp.mean(x ** 2 * 3 + y)


# ------------------------------------------------------------ shared pieces
def softmax_xent(logits, labels):
    """Mean softmax cross-entropy with integer labels."""
    logp = jax.nn.log_softmax(logits, axis=-1)
    onehot = jax.nn.one_hot(labels, logits.shape[-1], dtype=logits.dtype)
    return -jnp.mean(jnp.sum(onehot * logp, axis=-1))


def adam(params, grads, m, v, step, lr=1e-3, b1=0.9, b2=0.999, eps=1e-8):
    """One Adam step over matching pytrees; step is the s32 count before it."""
    t = (step + 1).astype(f32)
    m = jax.tree.map(lambda m_, g: b1 * m_ + (1 - b1) * g, m, grads)
    v = jax.tree.map(lambda v_, g: b2 * v_ + (1 - b2) * g * g, v, grads)
    mhat_scale = 1.0 / (1.0 - b1 ** t)
    vhat_scale = 1.0 / (1.0 - b2 ** t)
    params = jax.tree.map(
        lambda p, m_, v_: p - lr * (m_ * mhat_scale) / (jnp.sqrt(v_ * vhat_scale) + eps),
        params, m, v)
    return params, m, v, step + 1


# ---------------------------------------------------------- mnist_train_step
def mnist_loss(params, images, labels):
    w, b = params
    logits = images @ w + b
    return softmax_xent(logits, labels)


def mnist_train_step(params, m, v, step, images, labels):
    loss, grads = jax.value_and_grad(mnist_loss)(params, images, labels)
    params, m, v, step = adam(params, grads, m, v, step)
    return params, m, v, step, loss


# ------------------------------------------------------ cifar_cnn_train_step
def conv(x, w, b):
    y = lax.conv_general_dilated(x, w, window_strides=(1, 1), padding="SAME",
                                 dimension_numbers=("NHWC", "HWIO", "NHWC"))
    return y + b


def maxpool2x2(x):
    return lax.reduce_window(x, -jnp.inf, lax.max, window_dimensions=(1, 2, 2, 1),
                             window_strides=(1, 2, 2, 1), padding="VALID")


def cnn_loss(params, images, labels):
    w1, b1, w2, b2, w3, b3 = params
    h = maxpool2x2(jax.nn.relu(conv(images, w1, b1)))   # [32,16,16,16]
    h = maxpool2x2(jax.nn.relu(conv(h, w2, b2)))        # [32,8,8,32]
    h = h.reshape(h.shape[0], -1)                       # [32,2048]
    logits = h @ w3 + b3                                # [32,10]
    return softmax_xent(logits, labels)


def cifar_cnn_train_step(params, images, labels, lr=0.01):
    loss, grads = jax.value_and_grad(cnn_loss)(params, images, labels)
    params = jax.tree.map(lambda p, g: p - lr * g, params, grads)
    return params, loss


