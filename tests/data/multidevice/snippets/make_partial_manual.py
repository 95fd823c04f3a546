# Makes partial_manual.hlo (jax's module) and partial_manual.after_shardy-xla.txt (XLA's
# GSPMD form of it): a shard_map manual over 'data' only, on a 2x2 mesh ('data','model').
#   XLA_FLAGS="--xla_force_host_platform_device_count=4 --xla_dump_to=DIR --xla_dump_hlo_as_text
#     --xla_dump_hlo_pass_re=shardy-xla" JAX_PLATFORMS=cpu python make_partial_manual.py
# then copy DIR/*jit_g.before_optimizations.txt and *jit_g*after_shardy-xla*.txt here.
import jax
import jax.numpy as jnp
from jax import shard_map
from jax.sharding import NamedSharding, PartitionSpec as P

mesh = jax.make_mesh((2, 2), ('data', 'model'))


def body(x):
    return jax.lax.psum(x * 2, 'data')


f = shard_map(body, mesh=mesh, in_specs=P('data'), out_specs=P(), axis_names={'data'})


@jax.jit
def g(x):
    return f(jnp.sin(x)) + 1


x = jax.device_put(jnp.ones((8, 16)), NamedSharding(mesh, P('data', 'model')))
g.lower(x).compile()
