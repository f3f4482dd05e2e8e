//! `hark._core.LocalClassifier`: Hark's local classifier (hark-classify, with its
//! sentence-embedding model) for Python; `hark.pipecat.LocalClassifier` wraps it as a Pipecat
//! classifier.
//!
//! `ask(state_json, questions_json)` returns an asyncio awaitable; the question runs on tokio's
//! blocking pool, off the GIL ([`crate::blocking`]), and resolves to the answers' JSON text
//! ([`crate::classify_shapes`]). Every failure raises `hark._core.ClassifyError`, whose `kind`
//! says what kind it is:
//!
//! | kind | when |
//! |---|---|
//! | `unreadable_question` | a question the local classifier does not read (another yes/no question, a score question, a choice without a description or options) |
//! | `too_many_options` | a choice among more than 255 options |
//! | `missing_model` | `require_model=True` and the model is absent or does not load |
//! | `bad_input` | state or questions that are not JSON of the shapes read, contradicting arguments |
//! | `bad_answer`, `other` | hark-classify's kinds of the same names |

use std::path::PathBuf;
use std::sync::{Arc, Mutex, PoisonError};

use hark_classify::local::embed::e5::{E5, E5_FILE};
use hark_classify::local::embed::{self, EmbedError, Embedder};
use hark_classify::local::ranker::Ranker;
use hark_classify::{Classifier, ClassifierError, ErrorKind, LocalClassifier};
use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::prelude::*;

use crate::{blocking, classify_shapes};

create_exception!(
    hark._core,
    ClassifyError,
    PyException,
    "Hark's local classifier could not answer; `kind` says why (`unreadable_question`, \
     `too_many_options`, `missing_model`, `bad_input`, `bad_answer`, `other`)."
);

/// The command the Python package's texts name to fetch the model (`hark.models`).
pub const FETCH_COMMAND: &str = "python -m hark.models fetch";

/// The command that installs the multilingual model as well.
pub const FETCH_MULTILINGUAL: &str = "python -m hark.models fetch --multilingual";

/// How the Python package's texts name a fallback classifier.
pub const FALLBACK_HINT: &str = "hark.pipecat.LocalClassifier(fallback=LLMClassifier(llm=llm))";

/// A failure to hand to Python as a `ClassifyError`.
#[derive(Debug)]
pub(crate) struct Failure {
    kind: &'static str,
    message: String,
}

impl Failure {
    pub(crate) fn bad_input(message: String) -> Self {
        Failure {
            kind: "bad_input",
            message,
        }
    }

    fn to_error(py: Python<'_>, failure: Failure) -> PyErr {
        let err = ClassifyError::new_err(failure.message);
        // Setting an attribute on a fresh exception instance does not fail.
        let _ = err.value(py).setattr("kind", failure.kind);
        err
    }
}

impl From<ClassifierError> for Failure {
    fn from(e: ClassifierError) -> Self {
        let kind = match e.kind() {
            ErrorKind::NotUnderstood => "unreadable_question",
            other => other.as_str(),
        };
        Failure {
            kind,
            message: e.message,
        }
    }
}

/// Models loaded by this process, by directory: one load (about 0.2 s) per directory.
static MODELS: Mutex<Vec<(PathBuf, Arc<Embedder>)>> = Mutex::new(Vec::new());

/// The model in `dir` (else the model directory of `HARK_MODEL_DIR`, `XDG_CACHE_HOME`,
/// `HOME`), loaded once per process.
fn model(dir: Option<PathBuf>) -> Result<Arc<Embedder>, EmbedError> {
    let dir = dir
        .or_else(embed::model_dir)
        .ok_or(EmbedError::NoDirectory)?;
    let mut models = MODELS.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some((_, e)) = models.iter().find(|(d, _)| d == &dir) {
        return Ok(e.clone());
    }
    let loaded = Arc::new(Embedder::load(&dir)?);
    models.push((dir, loaded.clone()));
    Ok(loaded)
}

/// Learned rankers over the multilingual model loaded by this process, by directory.
static RANKERS: Mutex<Vec<(PathBuf, Arc<Ranker>)>> = Mutex::new(Vec::new());

/// The learned ranker over the multilingual model in `dir` (else the model directory), loaded
/// once per process.
fn ranker(dir: Option<PathBuf>) -> Result<Arc<Ranker>, String> {
    let dir = dir
        .or_else(embed::model_dir)
        .ok_or_else(|| EmbedError::NoDirectory.text_with_fetch_command(FETCH_MULTILINGUAL))?;
    let mut rankers = RANKERS.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some((_, r)) = rankers.iter().find(|(d, _)| d == &dir) {
        return Ok(r.clone());
    }
    let e5 =
        E5::load(&dir.join(E5_FILE)).map_err(|e| e.text_with_fetch_command(FETCH_MULTILINGUAL))?;
    let loaded = Arc::new(Ranker::over_e5(Arc::new(e5))?);
    rankers.push((dir, loaded.clone()));
    Ok(loaded)
}

/// Hark's local classifier, for Python: see the module docs.
#[pyclass(module = "hark._core", name = "LocalClassifier", frozen)]
#[derive(Debug)]
pub(crate) struct PyLocalClassifier {
    inner: Arc<LocalClassifier>,
    model_error: Option<String>,
}

#[pymethods]
impl PyLocalClassifier {
    /// `model_dir`: where the model files are (default: the model directory rule);
    /// `require_model`: raise `missing_model` instead of answering from lexical features when
    /// the model is absent; `embeddings=False`: lexical features only, no model loaded;
    /// `multilingual=True`: choices answered by the learned ranker over multilingual-e5-small
    /// (English, Spanish, French, German).
    #[new]
    #[pyo3(signature = (*, model_dir=None, require_model=false, embeddings=true, multilingual=false))]
    fn new(
        py: Python<'_>,
        model_dir: Option<PathBuf>,
        require_model: bool,
        embeddings: bool,
        multilingual: bool,
    ) -> PyResult<Self> {
        if multilingual {
            if !embeddings {
                return Err(Failure::to_error(
                    py,
                    Failure::bad_input(
                        "multilingual=True needs the multilingual embedding model and \
                         embeddings=False turns models off: pass one of them"
                            .to_string(),
                    ),
                ));
            }
            return match py.detach(|| ranker(model_dir)) {
                Ok(r) => Ok(Self::of(LocalClassifier::with_ranker(r), None)),
                Err(text) if require_model => Err(Failure::to_error(
                    py,
                    Failure {
                        kind: "missing_model",
                        message: format!(
                            "the local classifier's multilingual model is missing: {text}"
                        ),
                    },
                )),
                Err(text) => Ok(Self::of(LocalClassifier::lexical(), Some(text))),
            };
        }
        if !embeddings {
            if require_model {
                return Err(Failure::to_error(
                    py,
                    Failure::bad_input(
                        "require_model=True asks for the sentence-embedding model and \
                         embeddings=False turns it off: pass one of them"
                            .to_string(),
                    ),
                ));
            }
            return Ok(Self::of(LocalClassifier::lexical(), None));
        }
        match py.detach(|| model(model_dir)) {
            Ok(model) => Ok(Self::of(LocalClassifier::with_embedder(Some(model)), None)),
            Err(e) => {
                let text = e.text_with_fetch_command(FETCH_COMMAND);
                if require_model {
                    return Err(Failure::to_error(
                        py,
                        Failure {
                            kind: "missing_model",
                            message: format!("the local classifier's model is missing: {text}"),
                        },
                    ));
                }
                Ok(Self::of(LocalClassifier::lexical(), Some(text)))
            }
        }
    }

    /// Why the sentence-embedding model is not in use (`None` when it is): the classifier
    /// answers from lexical features alone, at lower confidence.
    #[getter]
    fn model_error(&self) -> Option<String> {
        self.model_error.clone()
    }

    /// Whether a sentence-embedding model scores the options.
    #[getter]
    fn semantic(&self) -> bool {
        self.inner.embedder().is_some() || self.inner.ranker().is_some()
    }

    /// Whether the learned multilingual ranker answers the choices.
    #[getter]
    fn multilingual(&self) -> bool {
        self.inner.ranker().is_some()
    }

    /// Answers `questions_json` about `state_json` (see the module docs for the shapes): an
    /// awaitable of the answers' JSON text, raising `ClassifyError`.
    fn ask<'py>(
        &self,
        py: Python<'py>,
        state_json: String,
        questions_json: String,
    ) -> PyResult<Bound<'py, PyAny>> {
        let classifier = self.inner.clone();
        blocking::awaitable(
            py,
            move || answer(&classifier, &state_json, &questions_json),
            Failure::to_error,
        )
    }
}

impl PyLocalClassifier {
    fn of(classifier: LocalClassifier, model_error: Option<String>) -> Self {
        PyLocalClassifier {
            inner: Arc::new(classifier.with_fallback_hint(FALLBACK_HINT)),
            model_error,
        }
    }
}

/// One call, on a blocking-pool thread.
fn answer(classifier: &LocalClassifier, state: &str, questions: &str) -> Result<String, Failure> {
    let state = classify_shapes::state(state)?;
    let questions = classify_shapes::questions(questions)?;
    let answers = tokio::runtime::Handle::current().block_on(classifier.ask(&state, &questions))?;
    Ok(classify_shapes::answers(&answers))
}

/// Adds `LocalClassifier` and `ClassifyError` to `hark._core`.
pub(crate) fn register(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add_class::<PyLocalClassifier>()?;
    module.add("ClassifyError", module.py().get_type::<ClassifyError>())?;
    Ok(())
}
