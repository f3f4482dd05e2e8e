//! Calibrated probabilities: a logistic (Platt) mapping from the choice scorer's features to
//! the probability that its best option is the element meant.
//!
//! [`CHOICE`] (lexical features only) and [`CHOICE_SEMANTIC`] (with the embedding model) hold
//! the fitted constants, committed. They were fitted by [`fit`] (L2 0.1) on
//! the train split of the grounding benchmark (`bench/grounding/rows.jsonl`, each row put
//! through `UiWorker::find_element`'s question as the benchmark runner does) together with the
//! train split of the hand-written rows in `data/labelled.jsonl` (beside this file); the dev
//! and test splits are never fitted on. The fitting script is
//! `tests/local_classifier.rs::fit_choice_calibration` (run it with
//! `cargo test -p hark-ui --release --test local_classifier -- --ignored fit_choice_calibration
//! --nocapture`; it prints the constants to paste here and the benchmark's dev log-loss/ECE).
//! The test
//! `committed_calibration_matches_the_fit` fails when the committed constants drift from a
//! fresh fit on the same rows (after a change to the scorer, refit).
//!
//! Yes/no answers read straight from the tree (a state tag present or absent) use
//! [`TREE_YES`] / [`TREE_NO`]: the tree can be truncated (200 nodes, depth 10), so never 1 or 0.

/// Calibration features per choice ([`super::choice::Scored::features`]).
pub const FEATURES: usize = 4;

/// A logistic mapping `p = 1 / (1 + exp(-(w·x + b)))` over [`FEATURES`] features.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Platt {
    /// Feature weights.
    pub weights: [f64; FEATURES],
    /// Bias.
    pub bias: f64,
}

/// The choice calibration with lexical features only: no embedding model, or a description
/// without content words (fitted; see the module docs). Features: best score, margin over the
/// runner-up, unmatched content share, cosine (always 0 here)
/// ([`super::choice::Scored::features`]).
pub const CHOICE: Platt = Platt {
    weights: [0.3678, 1.7145, -4.7284, 0.0],
    bias: -0.1424,
};

/// The lexical calibration the learned ranker's features were computed with
/// (`lexical_probabilities`: its `lex_prob`, `lex_log_rel`, `lex_best` and `lex_max`): the fit
/// of [`CHOICE`] when the committed `ranker/weights.json` was trained. Kept apart so a refit of
/// [`CHOICE`] does not change what the trained ranker reads; retraining the ranker
/// (`bench/grounding/train_ranker.py`) is when this moves to the current fit.
pub const RANKER_LEXICAL: Platt = Platt {
    weights: [0.3244, 1.7903, -4.8114, 0.0],
    bias: -0.1521,
};

/// The choice calibration when the sentence-embedding model scored the options (fitted the
/// same way, on the train choices the model scored, with L2 3.0: they are few, and that
/// penalty gave the lowest dev log-loss). Features as [`CHOICE`], the semantic margin
/// included.
pub const CHOICE_SEMANTIC: Platt = Platt {
    weights: [0.5797, 1.4409, -0.0042, 0.1329],
    bias: -3.5756,
};

/// P(yes) when the tree shows the thing asked.
pub const TREE_YES: f64 = 0.95;
/// P(yes) when the tree shows it is not so.
pub const TREE_NO: f64 = 0.05;

/// The logistic function.
pub fn sigmoid(z: f64) -> f64 {
    1.0 / (1.0 + (-z).exp())
}

impl Platt {
    /// The probability for `features`, in `(0, 1)`.
    pub fn probability(&self, features: &[f64; FEATURES]) -> f64 {
        let z: f64 = self
            .weights
            .iter()
            .zip(features)
            .map(|(w, x)| w * x)
            .sum::<f64>()
            + self.bias;
        sigmoid(z)
    }
}

/// Parameters of a [`Platt`] mapping: the weights, then the bias.
const PARAMS: usize = FEATURES + 1;

/// Fits a [`Platt`] mapping to `samples` (`(features, label)`) by Newton's method on the
/// log-loss with an L2 penalty `l2` on the weights (not the bias). Deterministic; 50
/// iterations at most. An empty sample gives the zero mapping (p = 0.5).
pub fn fit(samples: &[([f64; FEATURES], bool)], l2: f64) -> Platt {
    let mut theta = [0.0f64; PARAMS];
    for _ in 0..50 {
        let mut grad = [0.0f64; PARAMS];
        let mut hess = [[0.0f64; PARAMS]; PARAMS];
        for (x, y) in samples {
            let mut xs = [1.0f64; PARAMS];
            xs[..FEATURES].copy_from_slice(x);
            let z: f64 = xs.iter().zip(&theta).map(|(a, b)| a * b).sum();
            let p = sigmoid(z);
            let r = p - if *y { 1.0 } else { 0.0 };
            let w = (p * (1.0 - p)).max(1e-9);
            for i in 0..PARAMS {
                grad[i] += r * xs[i];
                for j in 0..PARAMS {
                    hess[i][j] += w * xs[i] * xs[j];
                }
            }
        }
        for i in 0..FEATURES {
            grad[i] += l2 * theta[i];
            hess[i][i] += l2;
        }
        hess[FEATURES][FEATURES] += 1e-9;
        let Some(step) = solve(hess, grad) else {
            break;
        };
        let mut change = 0.0f64;
        for i in 0..PARAMS {
            theta[i] -= step[i];
            change = change.max(step[i].abs());
        }
        if change < 1e-10 {
            break;
        }
    }
    let mut weights = [0.0; FEATURES];
    weights.copy_from_slice(&theta[..FEATURES]);
    Platt {
        weights,
        bias: theta[FEATURES],
    }
}

/// Solves `a x = b` by Gaussian elimination with partial pivoting; `None` when singular.
fn solve(mut a: [[f64; PARAMS]; PARAMS], mut b: [f64; PARAMS]) -> Option<[f64; PARAMS]> {
    for col in 0..PARAMS {
        let pivot = (col..PARAMS).max_by(|&i, &j| a[i][col].abs().total_cmp(&a[j][col].abs()))?;
        if a[pivot][col].abs() < 1e-12 {
            return None;
        }
        a.swap(col, pivot);
        b.swap(col, pivot);
        for row in col + 1..PARAMS {
            let f = a[row][col] / a[col][col];
            let pivot_row = a[col];
            for (cell, p) in a[row].iter_mut().zip(pivot_row).skip(col) {
                *cell -= f * p;
            }
            b[row] -= f * b[col];
        }
    }
    let mut x = [0.0f64; PARAMS];
    for row in (0..PARAMS).rev() {
        let s: f64 = (row + 1..PARAMS).map(|k| a[row][k] * x[k]).sum();
        x[row] = (b[row] - s) / a[row][row];
    }
    Some(x)
}

/// Expected calibration error of `(probability, correct)` pairs over `bins` equal-width bins:
/// the weighted mean of |accuracy − mean probability| per bin.
pub fn expected_calibration_error(pairs: &[(f64, bool)], bins: usize) -> f64 {
    if pairs.is_empty() || bins == 0 {
        return 0.0;
    }
    let mut sum_p = vec![0.0; bins];
    let mut sum_y = vec![0.0; bins];
    let mut count = vec![0usize; bins];
    for &(p, y) in pairs {
        let b = ((p * bins as f64) as usize).min(bins - 1);
        sum_p[b] += p;
        sum_y[b] += if y { 1.0 } else { 0.0 };
        count[b] += 1;
    }
    (0..bins)
        .filter(|&b| count[b] > 0)
        .map(|b| (sum_y[b] - sum_p[b]).abs())
        .sum::<f64>()
        / pairs.len() as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fit_recovers_a_known_logistic() {
        // Labels drawn deterministically from p = sigmoid(2·x0 − 1).
        let mut samples = Vec::new();
        for i in 0..400 {
            let x0 = (i % 40) as f64 / 10.0 - 1.0;
            let p = sigmoid(2.0 * x0 - 1.0);
            let y = ((i * 7919) % 100) as f64 / 100.0 < p;
            samples.push(([x0, 0.0, 0.0, 0.0], y));
        }
        let fitted = fit(&samples, 1e-6);
        assert!((fitted.weights[0] - 2.0).abs() < 0.6, "{fitted:?}");
        assert!((fitted.bias + 1.0).abs() < 0.5, "{fitted:?}");
    }

    #[test]
    fn ece_of_perfect_calibration_is_zero() {
        let pairs = [(1.0, true), (0.0, false), (0.0, false)];
        assert_eq!(expected_calibration_error(&pairs, 10), 0.0);
        assert!((expected_calibration_error(&[(0.9, false)], 10) - 0.9).abs() < 1e-12);
    }
}
