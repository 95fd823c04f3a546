"""Writes tests/data/linalg/: jax's HLO of linear-algebra programs on the CPU, where jax
calls LAPACK through typed-FFI custom calls (`lapack_spotrf_ffi` for Cholesky,
`lapack_strsm_ffi` for triangular solves, `lapack_sgetrf_ffi` for LU, `lapack_sgeqrf_ffi`
and `lapack_sorgqr_ffi` for QR, `lapack_ssyevd_ffi` for eigh, `lapack_sgesdd_ffi` for SVD), with inputs and the outputs XLA's CPU backend
(and LAPACK) gave for them.

Each case NAME gives NAME.hlo, NAME.inI.npy (one per parameter) and NAME.outI.npy. Run
from a virtual environment with jax (pinned 0.10.2 on the CPU):
    python scripts/make_linalg_testdata.py
"""
import os
import re

import jax
import jax.numpy as jnp
import jax.scipy.linalg as sl
import numpy as np

from hlo_cases import write_case

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data", "linalg")
rng = np.random.default_rng(3)


def spd(batch, n):
    m = rng.standard_normal((batch, n, n)).astype(np.float32)
    return (m @ np.swapaxes(m, -1, -2) + n * np.eye(n, dtype=np.float32)).astype(np.float32)


def write(name, fn, args):
    text = jax.jit(fn).lower(*args).as_text(dialect="hlo")
    write_case(OUT, name, text, args, jax.jit(fn)(*args))
    print(name, sorted(set(re.findall(r'custom_call_target="([^"]+)"', text))))


def main():
    os.makedirs(OUT, exist_ok=True)
    a = spd(3, 6)
    b = rng.standard_normal((3, 6, 2)).astype(np.float32)
    # Cholesky (lower) then two triangular solves: jax.scipy's cho_factor and cho_solve.
    write("cho_solve", lambda a, b: sl.cho_solve(sl.cho_factor(a, lower=True), b), (a, b))
    # The upper factor: potrf with uplo 'U'.
    write("cholesky_upper", lambda a: jnp.linalg.cholesky(a, upper=True), (a,))
    l = np.tril(rng.standard_normal((6, 6)).astype(np.float32)) + 4 * np.eye(6, dtype=np.float32)
    c = rng.standard_normal((4, 6)).astype(np.float32)
    # op(a) = a^T with a unit diagonal, from the left.
    write("solve_triangular_trans_unit", lambda l, c: sl.solve_triangular(l, c.T, lower=True, trans=1,
                                                                          unit_diagonal=True), (l, c))
    # x u = c: an upper triangle from the right.
    write("solve_triangular_upper_right",
          lambda u, c: jax.lax.linalg.triangular_solve(u, c, left_side=False, lower=False), (l.T.copy(), c))
    # LU with partial pivoting (lapack_sgetrf_ffi): jax.scipy's lu_factor (the factors and
    # the 0-based pivots), a batched solve, an inverse and determinants (one singular).
    g = rng.standard_normal((2, 5, 5)).astype(np.float32)
    write("lu_factor", lambda g: sl.lu_factor(g), (g,))
    write("solve", jnp.linalg.solve, (g, rng.standard_normal((2, 5, 3)).astype(np.float32)))
    write("inv", jnp.linalg.inv, (g,))
    singular = g.copy()
    singular[1, 3] = singular[1, 1]  # two equal rows
    write("det", jnp.linalg.det, (singular,))
    write("lu_wide", lambda w: sl.lu_factor(w), (rng.standard_normal((3, 6)).astype(np.float32),))
    # Householder QR (lapack_sgeqrf_ffi, then lapack_sorgqr_ffi for Q): reduced, complete
    # (Q square: orgqr of the padded reflectors), wide and batched, and an upper-triangular
    # matrix with a negative diagonal entry: every column is zero below the diagonal, so
    # every tau is 0 (H = I) and R keeps a's signs.
    write("qr_reduced", jnp.linalg.qr, (rng.standard_normal((6, 4)).astype(np.float32),))
    write("qr_complete", lambda x: jnp.linalg.qr(x, mode="complete"), (rng.standard_normal((5, 3)).astype(np.float32),))
    write("qr_wide_batched", jnp.linalg.qr, (rng.standard_normal((2, 3, 5)).astype(np.float32),))
    t = np.triu(rng.standard_normal((4, 3))).astype(np.float32)
    t[1, 1] = -abs(t[1, 1])
    write("qr_triangular", jnp.linalg.qr, (t,))
    # Least squares through QR: jax.scipy.linalg.solve_triangular(r, q^T b).
    write("qr_least_squares",
          lambda a, b: sl.solve_triangular(jnp.linalg.qr(a)[1], jnp.linalg.qr(a)[0].T @ b, lower=False),
          (rng.standard_normal((8, 3)).astype(np.float32), rng.standard_normal((8, 2)).astype(np.float32)))


def symmetric(*shape):
    m = rng.standard_normal(shape)
    return ((m + np.swapaxes(m, -1, -2)) / 2).astype(np.float32)


def eigen_cases():
    # jax's eigh (lapack_ssyevd_ffi): the eigenvalues alone, and what is computed from the
    # vectors without their signs (each vector is unique only up to sign, and LAPACK's
    # choice is its algorithm's): the reconstruction V diag(w) V^T and the projector onto
    # the three largest eigenvalues' space.
    write("eigvalsh_odd", jnp.linalg.eigvalsh, (symmetric(3, 7, 7),))
    write("eigh_reconstruct", lambda a: (lambda w, v: (w, (v * w[..., None, :]) @ jnp.swapaxes(v, -1, -2)))(
        *jnp.linalg.eigh(a)), (symmetric(2, 16, 16),))
    write("eigh_projector", lambda a: (lambda v: v[:, -3:] @ v[:, -3:].T)(jnp.linalg.eigh(a)[1]), (symmetric(9, 9),))


def svd_cases():
    # jax's SVD (lapack_sgesdd_ffi): the singular values of tall and wide batches (mode
    # 'N'), and what is computed from the vectors without their signs: pinv and lstsq
    # (mode 'S'), a reconstruction from the full U and V^T (mode 'A'), U^T U of the full U
    # (its completion), the rank and singular values of a rank-2 matrix, norm(ord=2) and cond.
    normal = lambda *shape: rng.standard_normal(shape).astype(np.float32)
    write("svdvals", lambda a: (jnp.linalg.svd(a, compute_uv=False), jnp.linalg.svd(a.mT, compute_uv=False)),
          (normal(3, 7, 4),))
    write("pinv", jnp.linalg.pinv, (normal(6, 4),))
    write("pinv_wide", jnp.linalg.pinv, (normal(3, 5),))
    write("lstsq", lambda a, b: jnp.linalg.lstsq(a, b)[0], (normal(8, 3), normal(8, 2)))
    write("svd_reconstruct_full", lambda a: (lambda u, s, vt: ((u[:, :4] * s) @ vt, u.T @ u))(
        *jnp.linalg.svd(a, full_matrices=True)), (normal(6, 4),))
    write("svd_rank_deficient", lambda a: (jnp.linalg.matrix_rank(a), jnp.linalg.svd(a, compute_uv=False)),
          (normal(6, 2) @ normal(2, 5),))
    write("svd_norm2_cond", lambda a: (jnp.linalg.norm(a, ord=2), jnp.linalg.cond(a)), (normal(5, 5),))


def write_gpu(name, fn, args):
    """jax's module of `fn` as it lowers for CUDA (cuSOLVER calls; no GPU needed to lower),
    with what jax computes for `fn` on the CPU as the expected outputs."""
    text = jax.jit(fn).trace(*args).lower(lowering_platforms=("cuda",)).as_text(dialect="hlo")
    write_case(OUT, name, text, args, jax.jit(fn)(*args))
    print(name, sorted(set(re.findall(r'custom_call_target="([^"]+)"', text))))


def gpu_cases():
    # jax's GPU linear algebra: cuSOLVER's getrf with jax's pivots-to-permutation kernel
    # (jnp.linalg.solve), geqrf/orgqr, syevd, and gesvdj (which returns V, not V^T; econ
    # only above 32 x 32), against what jax computes on the CPU (LAPACK) for the same
    # function: outputs that do not depend on the vectors' signs.
    normal = lambda *shape: rng.standard_normal(shape).astype(np.float32)
    write_gpu("gpu_solve", jnp.linalg.solve, (normal(2, 5, 5), normal(2, 5, 3)))
    write_gpu("gpu_qr", jnp.linalg.qr, (normal(6, 4),))
    write_gpu("gpu_eigh_reconstruct", lambda a: (lambda w, v: (w, (v * w[None, :]) @ v.T))(*jnp.linalg.eigh(a)),
              (symmetric(8, 8),))
    write_gpu("gpu_pinv", jnp.linalg.pinv, (normal(6, 4),))
    write_gpu("gpu_svd_econ", lambda a: (lambda u, s, vt: (s, (u * s) @ vt))(*jnp.linalg.svd(a, full_matrices=False)),
              (normal(40, 36),))


def gpu_factorization_cases():
    # jax's GPU Cholesky, LU and QR as the GPU runtime hands them to cuSOLVER and cuBLAS
    # (compiler/ir/solver_plan.h): potrfBatched (a batch), potrf (one matrix, then two
    # trsm), cuBLAS's getrfBatched (small square matrices, several), cuSOLVER's getrf (one
    # matrix; a wide one), against what jax computes on the CPU.
    t = np.random.default_rng(17)
    normal = lambda *shape: t.standard_normal(shape).astype(np.float32)

    def spd_of(batch, n):
        x = t.standard_normal((batch, n, n)).astype(np.float32)
        return x @ x.transpose(0, 2, 1) + n * np.eye(n, dtype=np.float32)

    write_gpu("gpu_cholesky", jnp.linalg.cholesky, (spd_of(3, 6),))
    write_gpu("gpu_cho_solve", lambda a, b: jax.scipy.linalg.cho_solve(jax.scipy.linalg.cho_factor(a, lower=True), b),
              (spd_of(1, 12)[0], normal(12, 3)))
    write_gpu("gpu_lu_factor", lambda a: jax.scipy.linalg.lu_factor(a), (normal(4, 6, 6),))
    write_gpu("gpu_det_single", jnp.linalg.det, (np.eye(24, dtype=np.float32) + 0.25 * normal(24, 24),))
    write_gpu("gpu_lu_wide", lambda a: jax.lax.linalg.lu(a)[0], (normal(3, 7),))
    # QR: cuBLAS's geqrfBatched (a batch of small matrices), cuSOLVER's geqrf and orgqr
    # (complete Q of a tall matrix; a wide one), raw Q and R (Householder's signs are
    # dlarfg's in LAPACK, cuSOLVER and cuBLAS alike).
    write_gpu("gpu_qr_batched", jnp.linalg.qr, (normal(4, 5, 3),))
    write_gpu("gpu_qr_complete", lambda a: jnp.linalg.qr(a, mode="complete"), (normal(5, 3),))
    write_gpu("gpu_qr_wide", jnp.linalg.qr, (normal(3, 5),))
    # eigh: cuSOLVER's syevjBatched (a batch up to 32 x 32) and syevd (larger), the
    # eigenvalues and V diag(w) Vᵀ (the vectors' signs are the solver's).
    def sym(*shape):
        x = t.standard_normal(shape).astype(np.float32)
        return (x + np.swapaxes(x, -1, -2)) / 2
    reconstruct = lambda a: (lambda w, v: (w, (v * w[..., None, :]) @ jnp.swapaxes(v, -1, -2)))(*jnp.linalg.eigh(a))
    write_gpu("gpu_eigh_batched", reconstruct, (sym(3, 6, 6),))
    write_gpu("gpu_eigh_large", reconstruct, (sym(40, 40),))
    # SVD: cuSOLVER's gesvdjBatched (a batch up to 32 x 32, full U and V): the singular
    # values and U[:, :k] diag(s) Vᵀ (the pairs' signs are the solver's).
    write_gpu("gpu_svd_batched", lambda a: (lambda u, s, vt: (s, (u[..., :, :4] * s[..., None, :]) @ vt))(
        *jnp.linalg.svd(a, full_matrices=True)), (normal(3, 5, 4),))


def tridiagonal_cases():
    # jax's tridiagonal solve (lapack_sgtsv_ffi: elimination with partial pivoting). Small
    # diagonals, so that rows swap; a batch of 3 systems of 7 rows, 2 right-hand sides.
    t = np.random.default_rng(11)
    n = 7
    dl, d, du = (t.standard_normal((3, n)).astype(np.float32) for _ in range(3))
    d *= 0.3
    dl[:, 0] = 0
    du[:, -1] = 0
    write("tridiagonal_solve", jax.lax.linalg.tridiagonal_solve, (dl, d, du, t.standard_normal((3, n, 2)).astype(np.float32)))
    # The call itself with all five results against LAPACK's own (scipy's sgtsv, the
    # library jaxlib calls): the factors LAPACK leaves in dl, d and du, x, and info. System
    # 0 swaps rows, system 1 is diagonally dominant, system 2 meets a zero pivot at row 3
    # (LAPACK returns there: info 3, the arrays as they were).
    from scipy.linalg import lapack
    dl, d, du = (t.standard_normal((3, 6)).astype(np.float32) for _ in range(3))
    d[0] *= 0.2
    d[1] += 4 * np.sign(d[1])
    dl[2] = [0, 1, 0.5, 0, 2, 1]
    d[2] = [2, 1, 0.5, 3, 1, 1]
    du[2] = [1, 0.5, 2, 1, 1, 0]
    b = t.standard_normal((3, 6, 2)).astype(np.float32)
    outs = [np.empty_like(dl), np.empty_like(d), np.empty_like(du), np.empty_like(b), np.zeros(3, np.int32)]
    for i in range(3):
        du2, d_out, du_out, x, info = lapack.sgtsv(dl[i, 1:], d[i], du[i, :-1], b[i])
        outs[0][i] = np.concatenate([dl[i, :1], du2])
        outs[1][i] = d_out
        outs[2][i] = np.concatenate([du_out, du[i, -1:]])
        outs[3][i] = x
        outs[4][i] = info
    text = """HloModule gtsv

ENTRY e {
  dl = f32[3,6] parameter(0)
  d = f32[3,6] parameter(1)
  du = f32[3,6] parameter(2)
  b = f32[3,6,2]{1,2,0} parameter(3)
  ROOT s = (f32[3,6], f32[3,6], f32[3,6], f32[3,6,2]{1,2,0}, s32[3]) custom-call(dl, d, du, b), custom_call_target="lapack_sgtsv_ffi", output_to_operand_aliasing={{0}: (0, {}), {1}: (1, {}), {2}: (2, {}), {3}: (3, {})}, api_version=API_VERSION_TYPED_FFI, frontend_attributes={num_batch_dims="1"}
}
"""
    write_case(OUT, "gtsv_lapack", text, (dl, d, du, b), tuple(outs))
    print("gtsv_lapack", "info", outs[4])


def hessenberg_cases():
    # jax's Hessenberg reduction (lapack_sgehrd_ffi, then lapack_sorgqr_ffi for Q): H and Q
    # themselves (LAPACK's reflector signs decide them), and the call alone with its three
    # results against LAPACK's own (scipy's sgehrd: a with H on and above the sub-diagonal
    # and the reflectors below, the taus, info) for two matrices, one with a column already
    # zero below its sub-diagonal (tau 0 there).
    from scipy.linalg import lapack
    t = np.random.default_rng(13)
    write("hessenberg", lambda a: jax.scipy.linalg.hessenberg(a, calc_q=True), (t.standard_normal((6, 6)).astype(np.float32),))
    a = t.standard_normal((2, 6, 6)).astype(np.float32)
    a[1, 2:, 0] = 0
    outs = [np.empty_like(a), np.empty((2, 5), np.float32), np.zeros(2, np.int32)]
    for i in range(2):
        h, tau, info = lapack.sgehrd(a[i])
        outs[0][i], outs[1][i], outs[2][i] = h, tau, info
    text = """HloModule gehrd

ENTRY e {
  a = f32[2,6,6]{1,2,0} parameter(0)
  ROOT h = (f32[2,6,6]{1,2,0}, f32[2,5], s32[2]) custom-call(a), custom_call_target="lapack_sgehrd_ffi", output_to_operand_aliasing={{0}: (0, {})}, api_version=API_VERSION_TYPED_FFI, backend_config={high = 6 : i32, low = 1 : i32}
}
"""
    write_case(OUT, "gehrd_lapack", text, (a,), tuple(outs))
    print("gehrd_lapack taus", outs[1])


def pivoting_cases():
    # jax's QR with column pivoting (lapack_sgeqp3_ffi with jpvt all zeros, then
    # lapack_sorgqr_ffi): Q, R and the permutation, columns of distinct scales so that the
    # pivots are not near ties; and the call alone against scipy's sgeqp3 (a, jpvt, taus):
    # two 6x5 matrices, the second with a column nearly parallel to another (its norm's
    # downdate cancels, so LAPACK recomputes it).
    from scipy.linalg import lapack
    t = np.random.default_rng(17)
    a = (t.standard_normal((7, 5)) * np.array([1, 4, 0.5, 2, 8])).astype(np.float32)
    write("qr_pivoting", lambda a: jax.scipy.linalg.qr(a, pivoting=True, mode="economic"), (a,))
    b = (t.standard_normal((2, 6, 5)) * np.array([1, 3, 0.25, 2, 5])).astype(np.float32)
    b[1, :, 3] = b[1, :, 4] * 0.4 + 1e-3 * t.standard_normal(6).astype(np.float32)
    outs = [np.empty_like(b), np.zeros((2, 5), np.int32), np.zeros((2, 5), np.float32)]
    for i in range(2):
        qr, jpvt, tau, work, info = lapack.sgeqp3(b[i])
        outs[0][i], outs[1][i], outs[2][i] = qr, jpvt, tau[:5]
    text = """HloModule geqp3

ENTRY e {
  a = f32[2,6,5]{1,2,0} parameter(0)
  zero = s32[] constant(0)
  jpvt = s32[2,5] broadcast(zero), dimensions={}
  ROOT q = (f32[2,6,5]{1,2,0}, s32[2,5], f32[2,5]) custom-call(a, jpvt), custom_call_target="lapack_sgeqp3_ffi", output_to_operand_aliasing={{0}: (0, {}), {1}: (1, {})}, api_version=API_VERSION_TYPED_FFI, backend_config={}
}
"""
    write_case(OUT, "geqp3_lapack", text, (b,), tuple(outs))
    print("geqp3_lapack jpvt", outs[1])


def vector_cases():
    # The raw vectors, signs included (2026-12-04): the CPU backend runs these calls through
    # LAPACK, as XLA does, so they are jax's own; the interpreter's and the GPU's Jacobi
    # rotations may give their negatives. Their own generator, so the other groups' inputs
    # stay as they were.
    g = np.random.default_rng(11)
    m = g.standard_normal((4, 10, 10))
    write("eigh_vectors", jnp.linalg.eigh, (((m + np.swapaxes(m, -1, -2)) / 2).astype(np.float32),))
    write("svd_vectors", lambda a: jnp.linalg.svd(a, full_matrices=False), (g.standard_normal((3, 9, 7)).astype(np.float32),))
    write("svd_vectors_f64", lambda a: jnp.linalg.svd(a, full_matrices=True), (g.standard_normal((4, 3)),))


def general_eigen_cases():
    # jax's eigendecomposition of a general matrix (lapack_?geev_ffi, 2026-12-04): no plain
    # HLO; the CPU backend runs LAPACK's geev, as XLA does, so the eigenvalues' order and the
    # vectors' phases are jax's own.
    g = np.random.default_rng(12)
    write("eig_vectors", jnp.linalg.eig, (g.standard_normal((3, 5, 5)).astype(np.float32),))
    write("eigvals_general", jnp.linalg.eigvals, (g.standard_normal((2, 6, 6)).astype(np.float32),))
    write("eig_left_right_f64", lambda a: jax.lax.linalg.eig(a, compute_left_eigenvectors=True),
          (g.standard_normal((4, 4)),))


def complex_cases():
    # jax's complex linear algebra (lapack_c..._ffi, lapack_z..._ffi; 2026-12-04): no plain
    # HLO; the CPU backend runs LAPACK's c and z routines, as XLA does, so the outputs are
    # jax's own, the Hermitian eigenvectors' phases included.
    g = np.random.default_rng(13)
    cplx = lambda *shape: (g.standard_normal(shape) + 1j * g.standard_normal(shape)).astype(np.complex64)
    a, b = cplx(2, 6, 6), cplx(2, 6, 3)
    write("complex_solve", jnp.linalg.solve, (a, b))
    m = cplx(3, 5, 5)
    h = (m @ np.conj(np.swapaxes(m, -1, -2)) + 5 * np.eye(5)).astype(np.complex64)
    write("complex_cholesky", jnp.linalg.cholesky, (h,))
    write("complex_qr", jnp.linalg.qr, (cplx(7, 4),))
    write("complex_eigh_vectors", jnp.linalg.eigh, (((m + np.conj(np.swapaxes(m, -1, -2))) / 2).astype(np.complex64),))
    l = (np.tril(cplx(5, 5)) + 4 * np.eye(5)).astype(np.complex64)
    write("complex_solve_triangular_adjoint", lambda l, c: sl.solve_triangular(l, c, lower=True, trans="C"),
          (l, cplx(5, 2)))
    z = g.standard_normal((4, 4)) + 1j * g.standard_normal((4, 4))
    write("complex128_inv", jnp.linalg.inv, (z,))
    # The SVD (lapack_cgesdd_ffi): raw vectors with LAPACK's phases, and a pseudo-inverse.
    write("complex_svd_vectors", lambda a: jnp.linalg.svd(a, full_matrices=False), (cplx(2, 6, 4),))
    write("complex_pinv", jnp.linalg.pinv, (cplx(5, 3),))


def schur_cases():
    # jax's Schur decomposition (lapack_?gees_ffi; jax.scipy.linalg.schur, sqrtm through the
    # complex Schur form, funm) and complex eig (lapack_cgeev_ffi), 2026-12-04: no plain HLO;
    # the CPU backend runs LAPACK's gees and geev, as XLA does.
    g = np.random.default_rng(14)
    a = g.standard_normal((6, 6)).astype(np.float32)
    write("schur_real", sl.schur, (a,))
    write("schur_complex_output", lambda a: sl.schur(a, output="complex"), (a,))
    spd = (a @ a.T + np.eye(6)).astype(np.float32)
    write("sqrtm", sl.sqrtm, (spd,))
    c = (g.standard_normal((2, 5, 5)) + 1j * g.standard_normal((2, 5, 5))).astype(np.complex64)
    write("complex_eig", jnp.linalg.eig, (c,))
    write("funm_exp", lambda a: sl.funm(a, jnp.exp), ((0.3 * a[:4, :4]).astype(np.float32),))


if __name__ == "__main__":
    import sys
    groups = {"main": main, "eigen": eigen_cases, "svd": svd_cases, "gpu": gpu_cases,
              "gpu_factorizations": gpu_factorization_cases, "tridiagonal": tridiagonal_cases,
              "hessenberg": hessenberg_cases, "pivoting": pivoting_cases,
              "vectors": vector_cases, "general_eigen": general_eigen_cases,
              "complex": complex_cases, "schur": schur_cases}
    for name in sys.argv[1:] or list(groups):
        groups[name]()
