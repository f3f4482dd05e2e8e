//! The trained scorer: a small network over each option's [`super::features`] row, a linear
//! score for "nothing fits", one softmax over both, and a temperature fitted on dev so the
//! probability means what it says.
//!
//! The weights are data, committed as `weights.json` beside this file and written by
//! `bench/grounding/train_ranker.py` (the training command is in `bench/grounding/README.md`).

use serde::Deserialize;

use super::features::{FEATURE_NAMES, FEATURES, Features, NONE_FEATURE_NAMES, NONE_FEATURES};

/// The trained weights, as `train_ranker.py` writes them.
#[derive(Debug, Clone, Deserialize)]
pub struct Weights {
    /// The option features' names, in order (checked against [`FEATURE_NAMES`]).
    pub features: Vec<String>,
    /// The "nothing fits" features' names (checked against [`NONE_FEATURE_NAMES`]).
    pub none_features: Vec<String>,
    /// Per feature: subtracted before scoring.
    pub mean: Vec<f32>,
    /// Per feature: divided by after the mean.
    pub scale: Vec<f32>,
    /// Hidden layer: `hidden × FEATURES`.
    pub w1: Vec<Vec<f32>>,
    /// Hidden biases.
    pub b1: Vec<f32>,
    /// Hidden → score.
    pub w2: Vec<f32>,
    /// Linear term straight from the features to the score.
    pub linear: Vec<f32>,
    /// "Nothing fits" weights over its features.
    pub none: Vec<f32>,
    /// Softmax temperature (fitted on dev).
    pub temperature: f32,
}

/// Why a weights file was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "the ranker's weights do not fit this build: {0} (retrain with bench/grounding/train_ranker.py)"
)]
pub struct WeightsError(pub String);

impl Weights {
    /// Reads and checks a weights file's JSON.
    pub fn from_json(text: &str) -> Result<Self, WeightsError> {
        let w: Weights =
            serde_json::from_str(text).map_err(|e| WeightsError(format!("not readable: {e}")))?;
        if w.features != FEATURE_NAMES {
            return Err(WeightsError(format!(
                "trained on the features {:?}, this build computes {:?}",
                w.features, FEATURE_NAMES
            )));
        }
        if w.none_features != NONE_FEATURE_NAMES {
            return Err(WeightsError(format!(
                "trained on the none features {:?}, this build computes {:?}",
                w.none_features, NONE_FEATURE_NAMES
            )));
        }
        let hidden = w.b1.len();
        let ok = w.mean.len() == FEATURES
            && w.scale.len() == FEATURES
            && w.linear.len() == FEATURES
            && w.none.len() == NONE_FEATURES
            && w.w2.len() == hidden
            && w.w1.len() == hidden
            && w.w1.iter().all(|r| r.len() == FEATURES)
            && w.temperature > 0.0
            && w.scale.iter().all(|s| *s > 0.0);
        if !ok {
            return Err(WeightsError("a layer has the wrong size".into()));
        }
        Ok(w)
    }

    /// One option's score (before the temperature).
    pub fn score(&self, row: &[f32; FEATURES]) -> f32 {
        let mut x = [0.0f32; FEATURES];
        for k in 0..FEATURES {
            x[k] = (row[k] - self.mean[k]) / self.scale[k];
        }
        let mut s: f32 = x.iter().zip(&self.linear).map(|(a, b)| a * b).sum();
        for (h, wrow) in self.w1.iter().enumerate() {
            let z: f32 = self.b1[h] + wrow.iter().zip(&x).map(|(a, b)| a * b).sum::<f32>();
            s += self.w2[h] * z.tanh();
        }
        s
    }

    /// "Nothing fits"'s score (before the temperature).
    pub fn none_score(&self, none: &[f32; NONE_FEATURES]) -> f32 {
        none.iter().zip(&self.none).map(|(a, b)| a * b).sum()
    }

    /// Each option's probability, in order, and "nothing fits"'s: one softmax, summing to 1.
    pub fn probabilities(&self, f: &Features) -> (Vec<f64>, f64) {
        let t = f64::from(self.temperature);
        let scores: Vec<f64> = f
            .options
            .iter()
            .map(|r| f64::from(self.score(r)) / t)
            .collect();
        let none = f64::from(self.none_score(&f.none)) / t;
        let max = scores.iter().copied().fold(none, f64::max);
        let exp: Vec<f64> = scores.iter().map(|s| (s - max).exp()).collect();
        let none_exp = (none - max).exp();
        let total: f64 = exp.iter().sum::<f64>() + none_exp;
        (exp.iter().map(|e| e / total).collect(), none_exp / total)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_committed_weights_load_and_give_probabilities_that_sum_to_one() {
        let w = Weights::from_json(super::super::WEIGHTS_JSON).expect("committed weights load");
        let f = Features {
            options: vec![[0.5; FEATURES], [0.1; FEATURES], [0.0; FEATURES]],
            none: [1.0, 0.5, 0.5, 0.0, 0.0, 0.0, 1.0, 0.5],
        };
        let (p, none) = w.probabilities(&f);
        assert_eq!(p.len(), 3);
        let total: f64 = p.iter().sum::<f64>() + none;
        assert!((total - 1.0).abs() < 1e-9, "{total}");
        assert!(p.iter().chain([&none]).all(|x| (0.0..=1.0).contains(x)));
    }

    #[test]
    fn weights_for_other_features_are_refused_with_the_fix() {
        let mut v: serde_json::Value = serde_json::from_str(super::super::WEIGHTS_JSON).unwrap();
        v["features"][0] = "something_else".into();
        let err = Weights::from_json(&v.to_string()).unwrap_err().to_string();
        assert!(err.contains("something_else"), "{err}");
        assert!(
            err.contains("retrain with bench/grounding/train_ranker.py"),
            "{err}"
        );
        v = serde_json::from_str(super::super::WEIGHTS_JSON).unwrap();
        v["b1"] = serde_json::json!([0.0]);
        let err = Weights::from_json(&v.to_string()).unwrap_err().to_string();
        assert!(err.contains("wrong size"), "{err}");
        assert!(Weights::from_json("{").is_err());
    }
}
