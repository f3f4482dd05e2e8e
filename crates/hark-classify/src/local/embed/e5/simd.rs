//! The hot loops: the Q4_0 × Q8_0 matrix product, activation quantization and GELU, each
//! with an AVX2 + FMA version (chosen at run time by [`Simd::detect`]) and a portable one
//! that gives the same integer sums (aarch64 and other targets use it; slower).
//!
//! Weights are repacked at load ([`pack`]) from Q4_0 rows into groups of 8 output rows: per
//! (group, block of 32 inputs) 4 chunks of 32 bytes, byte `r*4 + i` of chunk `c` holding
//! row `r`'s weights `8c + i` (low nibble) and `8c + 4 + i` (high nibble), unsigned (0..15,
//! the −8 of Q4_0 folded in through the activation block sums, as in e5.c), and the 8 rows'
//! block scales as f32. One AVX2 `maddubs` then multiplies 8 rows × 4 inputs by 4
//! broadcast activation bytes; the 8 products of a block add up in i16 without overflow
//! (|15 · 128 · 2| · 8 = 30720), so a block costs one `madd`, one convert and one FMA per
//! 8 outputs, and 4 tokens share each unpacked weight register.

#![allow(unsafe_code)]

use super::file::{Q4_BLOCK_BYTES, QK, fp16_to_f32};

/// Which kernels run: detected once per model.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Simd {
    /// x86-64 with AVX2, FMA and AVX-VNNI (`vpdpbusd` on 256 bits: Alder Lake, Sapphire
    /// Rapids, Zen 5 and later): the AVX2 kernels with one instruction per 4-input quad.
    AvxVnni,
    /// x86-64 with AVX2 and FMA.
    Avx2,
    /// Portable Rust.
    Scalar,
}

/// The environment variable that caps the kernels (for tests and benchmarks): `avx2` or
/// `scalar` (a CPU lacking a feature never gets its kernels).
pub const KERNEL_ENV: &str = "HARK_E5_KERNEL";

impl Simd {
    pub fn detect() -> Simd {
        let cap = std::env::var(KERNEL_ENV).unwrap_or_default();
        #[cfg(target_arch = "x86_64")]
        {
            if cap != "scalar"
                && std::is_x86_feature_detected!("avx2")
                && std::is_x86_feature_detected!("fma")
            {
                if cap != "avx2" && std::is_x86_feature_detected!("avxvnni") {
                    return Simd::AvxVnni;
                }
                return Simd::Avx2;
            }
        }
        let _ = cap;
        Simd::Scalar
    }
}

/// A weight matrix `[nout, nin]` in the packed layout, with its bias.
#[derive(Debug)]
pub struct Mat {
    pub nout: usize,
    pub nin: usize,
    packed: Vec<u8>,
    scales: Vec<f32>,
    pub bias: Vec<f32>,
}

/// Repacks Q4_0 rows (`nout` rows of `nin / 32` blocks) into [`Mat`]'s layout.
pub fn pack(raw: &[u8], nout: usize, nin: usize, bias: Vec<f32>) -> Mat {
    let nb = nin / QK;
    assert!(
        nout.is_multiple_of(8) && nin.is_multiple_of(QK) && raw.len() >= nout * nb * Q4_BLOCK_BYTES
    );
    let mut packed = vec![0u8; nout * nin / 2];
    let mut scales = vec![0f32; nout * nb];
    for g in 0..nout / 8 {
        for b in 0..nb {
            let dst = &mut packed[(g * nb + b) * 128..][..128];
            for r in 0..8 {
                let blk = &raw[((g * 8 + r) * nb + b) * Q4_BLOCK_BYTES..][..Q4_BLOCK_BYTES];
                scales[(g * nb + b) * 8 + r] = fp16_to_f32(u16::from_le_bytes([blk[0], blk[1]]));
                let qs = &blk[2..];
                let w = |j: usize| {
                    if j < 16 {
                        qs[j] & 0x0F
                    } else {
                        qs[j - 16] >> 4
                    }
                };
                for c in 0..4 {
                    for i in 0..4 {
                        dst[c * 32 + r * 4 + i] = w(8 * c + i) | (w(8 * c + 4 + i) << 4);
                    }
                }
            }
        }
    }
    Mat {
        nout,
        nin,
        packed,
        scales,
        bias,
    }
}

/// Activations `[t, n]` quantized per block of 32 (Q8_0): values, scales, 8 × block sums.
#[derive(Debug, Default)]
pub struct Q8 {
    pub q: Vec<i8>,
    pub d: Vec<f32>,
    pub s8: Vec<i32>,
    pub n: usize,
    pub t: usize,
}

#[inline(always)]
fn quantize_body(x: &[f32], t: usize, n: usize, out: &mut Q8) {
    let nb = n / QK;
    out.q.resize(t * n, 0);
    out.d.resize(t * nb, 0.0);
    out.s8.resize(t * nb, 0);
    out.n = n;
    out.t = t;
    for (blk, ((xs, qs), (d, s8))) in x[..t * n]
        .chunks_exact(QK)
        .zip(out.q.chunks_exact_mut(QK))
        .zip(out.d.iter_mut().zip(out.s8.iter_mut()))
        .enumerate()
    {
        let _ = blk;
        let mut amax = 0f32;
        for &v in xs {
            amax = amax.max(v.abs());
        }
        let dd = amax / 127.0;
        let id = if dd > 0.0 { 1.0 / dd } else { 0.0 };
        let mut sum = 0i32;
        for (q, &v) in qs.iter_mut().zip(xs) {
            // lrintf: round half to even; |v * id| <= 127 (+ rounding), clamped as e5.c.
            let r = (v * id).round_ties_even().clamp(-128.0, 127.0) as i32;
            *q = r as i8;
            sum += r;
        }
        *d = dd;
        *s8 = 8 * sum;
    }
}

/// Quantizes `x[t, n]` into `out`.
pub fn quantize(simd: Simd, x: &[f32], t: usize, n: usize, out: &mut Q8) {
    assert!(n.is_multiple_of(QK) && x.len() >= t * n);
    match simd {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: Simd::Avx2 and AvxVnni are only returned when the CPU has AVX2 and FMA.
        Simd::Avx2 | Simd::AvxVnni => unsafe { avx2::quantize(x, t, n, out) },
        _ => quantize_body(x, t, n, out),
    }
}

/// e^x for x in about [-87, 88], vectorizable (Cephes-style; about 1 ulp).
#[inline(always)]
fn exp_approx(x: f32) -> f32 {
    let x = x.clamp(-87.0, 88.0);
    let n = (x * std::f32::consts::LOG2_E + 12_582_912.0) - 12_582_912.0;
    let r = x - n * 0.693_359_4 + n * 2.121_944_4e-4;
    let p = 1.987_569_1e-4f32;
    let p = p * r + 1.398_199_9e-3;
    let p = p * r + 8.333_452e-3;
    let p = p * r + 4.166_579_6e-2;
    let p = p * r + 1.666_666_5e-1;
    let p = p * r + 0.5;
    let p = p * r * r + r + 1.0;
    p * f32::from_bits(((n as i32 + 127) as u32) << 23)
}

/// GELU (the exact, erf form: 0.5 x (1 + erf(x / √2))), erf by Abramowitz–Stegun 7.1.26
/// (absolute error < 1.5e-7).
#[inline(always)]
fn gelu_body(xs: &mut [f32]) {
    for x in xs {
        let v = *x;
        let z = (v * std::f32::consts::FRAC_1_SQRT_2).abs();
        let t = 1.0 / (1.0 + 0.327_591_1 * z);
        let poly = t
            * (0.254_829_6
                + t * (-0.284_496_74 + t * (1.421_413_7 + t * (-1.453_152_1 + t * 1.061_405_4))));
        let e = 1.0 - poly * exp_approx(-z * z);
        let erf = if v < 0.0 { -e } else { e };
        *x = 0.5 * v * (1.0 + erf);
    }
}

/// GELU in place.
pub fn gelu(simd: Simd, xs: &mut [f32]) {
    match simd {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: Simd::Avx2 and AvxVnni are only returned when the CPU has AVX2 and FMA.
        Simd::Avx2 | Simd::AvxVnni => unsafe { gelu_avx2(xs) },
        _ => gelu_body(xs),
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
fn gelu_avx2(xs: &mut [f32]) {
    gelu_body(xs)
}

/// `y[t, nout] = x · Wᵀ + bias`, `x` given quantized.
pub fn matmul(simd: Simd, w: &Mat, x: &Q8, y: &mut [f32]) {
    assert!(x.n == w.nin && x.q.len() >= x.t * w.nin && y.len() >= x.t * w.nout);
    assert!(w.packed.len() == w.nout * w.nin / 2 && w.bias.len() == w.nout);
    match simd {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: Simd::Avx2 is only returned when the CPU has AVX2 and FMA; the lengths
        // the kernel reads are the ones asserted above.
        Simd::Avx2 => unsafe { avx2::matmul(w, x, y) },
        #[cfg(target_arch = "x86_64")]
        // SAFETY: as above, and Simd::AvxVnni only when the CPU has AVX-VNNI.
        Simd::AvxVnni => unsafe { avx2::matmul_vnni(w, x, y) },
        _ => matmul_scalar(w, x, y),
    }
}

fn matmul_scalar(w: &Mat, x: &Q8, y: &mut [f32]) {
    let (nout, nin, nb) = (w.nout, w.nin, w.nin / QK);
    for g in 0..nout / 8 {
        for t in 0..x.t {
            let a = &x.q[t * nin..][..nin];
            let mut acc = [0f32; 8];
            for b in 0..nb {
                let wb = &w.packed[(g * nb + b) * 128..][..128];
                let mut isum = [0i32; 8];
                for c in 0..4 {
                    let a0 = &a[b * QK + 8 * c..][..8];
                    for r in 0..8 {
                        for i in 0..4 {
                            let byte = wb[c * 32 + r * 4 + i];
                            isum[r] += i32::from(byte & 0x0F) * i32::from(a0[i])
                                + i32::from(byte >> 4) * i32::from(a0[4 + i]);
                        }
                    }
                }
                let da = x.d[t * nb + b];
                let s8 = x.s8[t * nb + b];
                for r in 0..8 {
                    acc[r] += w.scales[(g * nb + b) * 8 + r] * da * (isum[r] - s8) as f32;
                }
            }
            for r in 0..8 {
                y[t * nout + g * 8 + r] = w.bias[g * 8 + r] + acc[r];
            }
        }
    }
}

#[cfg(target_arch = "x86_64")]
mod avx2 {
    use super::{Mat, Q8, QK};
    use std::arch::x86_64::*;

    /// # Safety
    /// AVX2 and FMA present; `x.q` holds `x.t * w.nin`, `y` `x.t * w.nout` values, `w` is
    /// well formed (checked by the caller).
    #[target_feature(enable = "avx2,fma")]
    pub unsafe fn matmul(w: &Mat, x: &Q8, y: &mut [f32]) {
        // SAFETY: as this function's.
        unsafe { matmul_impl::<false>(w, x, y) }
    }

    /// # Safety
    /// As [`matmul`], and AVX-VNNI present.
    #[target_feature(enable = "avx2,fma,avxvnni")]
    pub unsafe fn matmul_vnni(w: &Mat, x: &Q8, y: &mut [f32]) {
        // SAFETY: as this function's.
        unsafe { matmul_impl::<true>(w, x, y) }
    }

    #[inline(always)]
    unsafe fn matmul_impl<const VNNI: bool>(w: &Mat, x: &Q8, y: &mut [f32]) {
        let nin = w.nin;
        // Tokens in chunks whose activations stay in L2 while every row group passes over
        // them (a big batch would otherwise stream all its activations once per group).
        let chunk = (TOKEN_CHUNK_BYTES / nin).max(4);
        let mut c0 = 0;
        while c0 < x.t {
            let c1 = (c0 + chunk).min(x.t);
            // SAFETY: as this function's, for tokens c0..c1.
            unsafe { groups::<VNNI>(w, x, y, c0, c1) };
            c0 = c1;
        }
    }

    /// Activation bytes per token chunk.
    const TOKEN_CHUNK_BYTES: usize = 64 * 1024;

    #[inline(always)]
    unsafe fn groups<const VNNI: bool>(w: &Mat, x: &Q8, y: &mut [f32], c0: usize, c1: usize) {
        let (nout, nin, nb) = (w.nout, w.nin, w.nin / QK);
        for g in 0..nout / 8 {
            // SAFETY: group g's packed bytes, scales and bias are within the Mat.
            let (wg, sg, bias) = unsafe {
                (
                    w.packed.as_ptr().add(g * nb * 128),
                    w.scales.as_ptr().add(g * nb * 8),
                    _mm256_loadu_ps(w.bias.as_ptr().add(g * 8)),
                )
            };
            let mut t0 = c0;
            while t0 < c1 {
                let k = (c1 - t0).min(4);
                // SAFETY: tokens t0..t0+k are < x.t; outputs g*8..g*8+8 < nout.
                unsafe {
                    let a = x.q.as_ptr().add(t0 * nin);
                    let d = x.d.as_ptr().add(t0 * nb);
                    let s = x.s8.as_ptr().add(t0 * nb);
                    let out = y.as_mut_ptr().add(t0 * nout + g * 8);
                    match k {
                        4 => tile::<4, VNNI>(wg, sg, bias, nb, nin, nout, a, d, s, out),
                        3 => tile::<3, VNNI>(wg, sg, bias, nb, nin, nout, a, d, s, out),
                        2 => tile::<2, VNNI>(wg, sg, bias, nb, nin, nout, a, d, s, out),
                        _ => tile::<1, VNNI>(wg, sg, bias, nb, nin, nout, a, d, s, out),
                    }
                }
                t0 += k;
            }
        }
    }

    /// [`super::quantize`]'s body: per block of 32, `cvtps_epi32` rounds half to even as
    /// e5.c's `lrintf` does, and the saturating packs clamp to -128..=127 as e5.c does.
    ///
    /// # Safety
    /// AVX2 and FMA present; `n` a multiple of 32 and `x` at least `t * n` long.
    #[target_feature(enable = "avx2,fma")]
    pub unsafe fn quantize(x: &[f32], t: usize, n: usize, out: &mut Q8) {
        let nb = n / QK;
        out.q.resize(t * n, 0);
        out.d.resize(t * nb, 0.0);
        out.s8.resize(t * nb, 0);
        out.n = n;
        out.t = t;
        let sign = _mm256_set1_ps(-0.0);
        let order = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
        let ones8 = _mm256_set1_epi8(1);
        let ones16 = _mm256_set1_epi16(1);
        for blk in 0..t * nb {
            // SAFETY: block blk's 32 inputs and outputs are within x and out.q (checked by
            // the caller and the resizes above).
            unsafe {
                let p = x.as_ptr().add(blk * QK);
                let v = [
                    _mm256_loadu_ps(p),
                    _mm256_loadu_ps(p.add(8)),
                    _mm256_loadu_ps(p.add(16)),
                    _mm256_loadu_ps(p.add(24)),
                ];
                let m = _mm256_max_ps(
                    _mm256_max_ps(_mm256_andnot_ps(sign, v[0]), _mm256_andnot_ps(sign, v[1])),
                    _mm256_max_ps(_mm256_andnot_ps(sign, v[2]), _mm256_andnot_ps(sign, v[3])),
                );
                let m = _mm_max_ps(_mm256_castps256_ps128(m), _mm256_extractf128_ps(m, 1));
                let m = _mm_max_ps(m, _mm_movehl_ps(m, m));
                let m = _mm_max_ss(m, _mm_movehdup_ps(m));
                let amax = _mm_cvtss_f32(m);
                let dd = amax / 127.0;
                let id = _mm256_set1_ps(if dd > 0.0 { 1.0 / dd } else { 0.0 });
                let i0 = _mm256_cvtps_epi32(_mm256_mul_ps(v[0], id));
                let i1 = _mm256_cvtps_epi32(_mm256_mul_ps(v[1], id));
                let i2 = _mm256_cvtps_epi32(_mm256_mul_ps(v[2], id));
                let i3 = _mm256_cvtps_epi32(_mm256_mul_ps(v[3], id));
                let q = _mm256_packs_epi16(_mm256_packs_epi32(i0, i1), _mm256_packs_epi32(i2, i3));
                let q = _mm256_permutevar8x32_epi32(q, order);
                _mm256_storeu_si256(out.q.as_mut_ptr().add(blk * QK) as *mut __m256i, q);
                // The block sum, of the clamped values.
                let s = _mm256_madd_epi16(_mm256_maddubs_epi16(ones8, q), ones16);
                let s = _mm_add_epi32(_mm256_castsi256_si128(s), _mm256_extracti128_si256(s, 1));
                let s = _mm_add_epi32(s, _mm_unpackhi_epi64(s, s));
                let s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 1));
                *out.d.get_unchecked_mut(blk) = dd;
                *out.s8.get_unchecked_mut(blk) = 8 * _mm_cvtsi128_si32(s);
            }
        }
    }

    /// 8 outputs × N tokens.
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    unsafe fn tile<const N: usize, const VNNI: bool>(
        wg: *const u8,
        sg: *const f32,
        bias: __m256,
        nb: usize,
        nin: usize,
        nout: usize,
        a: *const i8,
        d: *const f32,
        s8: *const i32,
        out: *mut f32,
    ) {
        // SAFETY: as for `matmul`: every pointer offset stays in the block rows and
        // tokens the caller checked.
        unsafe {
            let low = _mm256_set1_epi8(0x0F);
            let ones = _mm256_set1_epi16(1);
            let mut facc = [_mm256_setzero_ps(); N];
            for b in 0..nb {
                let wb = wg.add(b * 128);
                let mut iacc = [_mm256_setzero_si256(); N];
                for c in 0..4 {
                    let raw = _mm256_loadu_si256(wb.add(c * 32) as *const __m256i);
                    let w0 = _mm256_and_si256(raw, low);
                    let w1 = _mm256_and_si256(_mm256_srli_epi16(raw, 4), low);
                    for (n, acc) in iacc.iter_mut().enumerate() {
                        let ap = a.add(n * nin + b * QK + c * 8);
                        let a0 = _mm256_set1_epi32((ap as *const i32).read_unaligned());
                        let a1 = _mm256_set1_epi32((ap.add(4) as *const i32).read_unaligned());
                        if VNNI {
                            // i32 lanes: 4 products each, no i16 stage.
                            *acc = _mm256_dpbusd_avx_epi32(*acc, w0, a0);
                            *acc = _mm256_dpbusd_avx_epi32(*acc, w1, a1);
                        } else {
                            let p = _mm256_add_epi16(
                                _mm256_maddubs_epi16(w0, a0),
                                _mm256_maddubs_epi16(w1, a1),
                            );
                            *acc = _mm256_add_epi16(*acc, p);
                        }
                    }
                }
                let dw = _mm256_loadu_ps(sg.add(b * 8));
                for (n, f) in facc.iter_mut().enumerate() {
                    let sums = if VNNI {
                        iacc[n]
                    } else {
                        _mm256_madd_epi16(iacc[n], ones)
                    };
                    let i = _mm256_sub_epi32(sums, _mm256_set1_epi32(*s8.add(n * nb + b)));
                    let scale = _mm256_mul_ps(dw, _mm256_set1_ps(*d.add(n * nb + b)));
                    *f = _mm256_fmadd_ps(_mm256_cvtepi32_ps(i), scale, *f);
                }
            }
            for (n, f) in facc.iter().enumerate() {
                _mm256_storeu_ps(out.add(n * nout), _mm256_add_ps(*f, bias));
            }
        }
    }
}
