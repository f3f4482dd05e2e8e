//! The Silero VAD v5/v6 ONNX model under tract, fed as Silero's own Python wrapper
//! (`OnnxWrapper`) and Pipecat's `SileroOnnxModel` feed it: each call takes one window (512
//! samples at 16 kHz, 256 at 8 kHz) with the last 64 (32) samples of the previous call in front
//! of it, the recurrent `state` ([2, 1, 128]) carried from call to call, and `sr`; it returns
//! the window's speech probability.

use std::path::Path;
use std::sync::Arc;

use tract_onnx::prelude::*;

use crate::error::VoiceError;

/// The model's recurrent state: `[2, 1, 128]` floats.
const STATE_LEN: usize = 2 * 128;

/// Samples of a window at a rate the model runs at natively (16 000 or 8 000 Hz).
pub fn window_len(rate: u32) -> usize {
    if rate == 8_000 { 256 } else { 512 }
}

/// Samples of the previous window put in front of each window.
pub fn context_len(rate: u32) -> usize {
    if rate == 8_000 { 32 } else { 64 }
}

/// The loaded model, planned for one native rate. Cheap to clone (the plan is shared).
#[derive(Clone)]
pub struct SileroModel {
    plan: Arc<TypedRunnableModel>,
    rate: u32,
}

impl std::fmt::Debug for SileroModel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SileroModel")
            .field("rate", &self.rate)
            .finish_non_exhaustive()
    }
}

impl SileroModel {
    /// Loads the ONNX file at `path` and plans it for windows at `rate` (16 000 or 8 000 Hz).
    /// A missing, unreadable or wrong file is [`VoiceError::VadModel`] naming it.
    pub fn load(path: &Path, rate: u32) -> Result<Self, VoiceError> {
        let model_error = |reason: String| VoiceError::VadModel {
            path: path.display().to_string(),
            reason,
        };
        let bytes = std::fs::read(path).map_err(|e| model_error(e.to_string()))?;
        let plan = Self::plan(&bytes, rate).map_err(|e| model_error(format!("{e:#}")))?;
        let model = Self { plan, rate };
        // One window of silence: a file that loads but does not run as Silero is refused here.
        let mut probe = SileroState::new(model.clone());
        probe
            .run(&vec![0.0; window_len(rate)])
            .map_err(|e| model_error(e.to_string()))?;
        Ok(model)
    }

    fn plan(bytes: &[u8], rate: u32) -> TractResult<Arc<TypedRunnableModel>> {
        let mut onnx = tract_onnx::onnx();
        super::onnx_if::register(&mut onnx);
        let mut model = onnx.model_for_read(&mut std::io::Cursor::new(bytes))?;
        if model.inputs.len() != 3 {
            return Err(TractError::msg(format!(
                "it has {} inputs, not Silero's three (input, state, sr)",
                model.inputs.len()
            )));
        }
        let n = window_len(rate) + context_len(rate);
        model.set_input_fact(0, InferenceFact::dt_shape(f32::datum_type(), tvec![1, n]))?;
        model.set_input_fact(
            1,
            InferenceFact::dt_shape(f32::datum_type(), tvec![2, 1, 128]),
        )?;
        // The rate as a constant, not an input: Silero's branches on it (and, inside, on
        // ranks) then resolve while the model is planned (see `onnx_if`).
        let sr = model.inputs[2];
        let rate_const = model.add_const("hark_fixed_sr", tensor0(i64::from(rate)))?;
        for inlet in model.node(sr.node).outputs[sr.slot].successors.clone() {
            model.add_edge(rate_const, inlet)?;
        }
        let inputs = model.inputs[..2].to_vec();
        model.set_input_outlets(&inputs)?;
        model.into_optimized()?.into_runnable()
    }

    /// The native rate the model is planned for.
    pub fn rate(&self) -> u32 {
        self.rate
    }
}

/// One stream's use of the model: its recurrent state and context.
#[derive(Debug)]
pub struct SileroState {
    model: SileroModel,
    state: Vec<f32>,
    /// The context followed by the window, the model's `input`.
    input: Vec<f32>,
}

impl SileroState {
    /// A fresh stream (zero state, zero context), as Silero's `reset_states`.
    pub fn new(model: SileroModel) -> Self {
        let n = window_len(model.rate) + context_len(model.rate);
        Self {
            model,
            state: vec![0.0; STATE_LEN],
            input: vec![0.0; n],
        }
    }

    /// Back to a fresh stream.
    pub fn reset(&mut self) {
        self.state.fill(0.0);
        self.input.fill(0.0);
    }

    /// The speech probability of one window (`window_len` samples, −1..1).
    pub fn run(&mut self, window: &[f32]) -> Result<f32, VoiceError> {
        let rate = self.model.rate;
        let (w, c) = (window_len(rate), context_len(rate));
        if window.len() != w {
            return Err(run_error(format!(
                "a window of {} samples, not {w}",
                window.len()
            )));
        }
        // The context: the last `c` samples of the previous input (zeros after a reset).
        self.input.copy_within(w.., 0);
        self.input[c..].copy_from_slice(window);
        let input = Tensor::from_shape(&[1, c + w], &self.input)
            .map_err(|e| run_error(format!("{e:#}")))?;
        let state = Tensor::from_shape(&[2, 1, 128], &self.state)
            .map_err(|e| run_error(format!("{e:#}")))?;
        let outputs = self
            .model
            .plan
            .run(tvec![input.into(), state.into()])
            .map_err(|e| run_error(format!("{e:#}")))?;
        if outputs.len() < 2 {
            return Err(run_error(format!(
                "{} outputs, not Silero's two (output, state)",
                outputs.len()
            )));
        }
        let prob = outputs[0]
            .to_plain_array_view::<f32>()
            .ok()
            .and_then(|v| v.iter().next().copied())
            .ok_or_else(|| run_error("no speech probability in its first output".into()))?;
        let next = outputs[1]
            .to_plain_array_view::<f32>()
            .map_err(|e| run_error(format!("its state output: {e:#}")))?;
        if next.len() != STATE_LEN {
            return Err(run_error(format!(
                "a state of {} values, not {STATE_LEN}",
                next.len()
            )));
        }
        for (s, v) in self.state.iter_mut().zip(next.iter()) {
            *s = *v;
        }
        Ok(prob)
    }
}

fn run_error(detail: String) -> VoiceError {
    VoiceError::Vad {
        detail: format!("the Silero model failed on a window: {detail}"),
    }
}
