//! The learned multilingual ranker (`LocalClassifier::learned`, issue 22) answering
//! `which_element` as Pipecat's `UIWorker` asks it: a choice among refs, each described by role
//! and name, over the screen's `<ui_state>` text. A Spanish caller on a Spanish page, a German
//! one on a German page, a French one on a French page, each in their own words; and a near name
//! where nothing fits.
//!
//! Needs the multilingual model (`e5-small-q4.bin`, `scripts/fetch-model.sh`); without it every
//! test says so on stderr and checks that `learned()` is `None`.
#![cfg(feature = "embeddings")]

use hark_classify::local::embed::{e5::E5_FILE, model_dir};
use hark_classify::local::{LocalClassifier, ScreenTree};
use hark_classify::{Answer, Classifier, Question, messages};
use serde_json::json;

fn classifier(test: &str) -> Option<LocalClassifier> {
    let present = model_dir().is_some_and(|d| d.join(E5_FILE).is_file());
    let c = LocalClassifier::learned();
    if !present {
        assert!(c.is_none(), "learned() without the model file");
        eprintln!("{test}: {E5_FILE} absent (run scripts/fetch-model.sh); skipped");
        return None;
    }
    Some(c.expect("the model file is there: the learned classifier loads"))
}

/// Every named element of a `<ui_state>` text as an option (ref, 'role "name"').
fn options(screen: &str) -> Vec<(String, Option<String>)> {
    screen
        .lines()
        .filter_map(|l| {
            let l = l.trim_start().strip_prefix("- ")?;
            let (role, rest) = l.split_once(" \"")?;
            let (name, rest) = rest.split_once('"')?;
            let r = rest.split("[ref=").nth(1)?.split(']').next()?;
            Some((r.to_string(), Some(messages::element_option(role, name))))
        })
        .collect()
}

async fn pick(c: &LocalClassifier, screen: &str, words: &str) -> (String, f64) {
    let (choice, confidence, _) = ask(c, screen, words).await;
    (choice, confidence)
}

/// The choice, its confidence and every option's probability (in the options' order).
async fn ask(c: &LocalClassifier, screen: &str, words: &str) -> (String, f64, Vec<f64>) {
    let q = [(
        "element".to_string(),
        Question::choice(messages::find_instructions(), options(screen)),
    )];
    let state = json!({"utterance": words, "screen": screen});
    let answers = c.ask(&state.into(), &q).await.unwrap();
    let Answer::Choice(r) = &answers[0].1 else {
        panic!("a choice answer")
    };
    let total: f64 = r.probabilities.iter().map(|(_, p)| p).sum();
    assert!(total <= 1.0 + 1e-9, "probabilities sum to {total}");
    let probabilities = r.probabilities.iter().map(|(_, p)| *p).collect();
    (r.choice.clone(), r.confidence, probabilities)
}

const HOTEL_ES: &str = "<ui_state>
- banner [ref=e1]:
  - link \"Hotel Sol\" [ref=e2]
  - button \"Cerrar sesión\" [ref=e3]
- form \"Tu reserva\" [ref=e4]:
  - textbox \"Nombre completo\" [ref=e5]
  - textbox \"Correo electrónico\" [ref=e6]
  - combobox \"Tipo de habitación\" [ref=e7]
  - checkbox \"Desayuno incluido\" [ref=e8]
  - checkbox \"Aparcamiento\" [ref=e9]
  - checkbox \"Acepto las condiciones\" [ref=e10]
  - button \"Confirmar reserva\" [ref=e11]
- contentinfo [ref=e12]:
  - link \"Aviso legal\" [ref=e13]
  - link \"Contacto\" [ref=e14]
</ui_state>";

#[tokio::test]
async fn a_spanish_caller_ticks_breakfast_on_a_spanish_page() {
    let Some(c) = classifier("spanish") else {
        return;
    };
    let (choice, confidence) = pick(&c, HOTEL_ES, "marca la casilla del desayuno").await;
    assert_eq!(choice, "e8");
    assert!(confidence >= 0.5, "confident enough to act: {confidence}");
    let (choice, _) = pick(&c, HOTEL_ES, "confirma la reserva").await;
    assert_eq!(choice, "e11");
}

const SIGNIN_DE: &str = "<ui_state>
- main [ref=e1]:
  - heading \"Anmelden\" [ref=e2]
  - textbox \"E-Mail-Adresse\" [ref=e3]
  - textbox \"Passwort\" [ref=e4]
  - button \"Anmelden\" [ref=e5]
  - link \"Passwort vergessen?\" [ref=e6]
  - button \"Mit Microsoft anmelden\" [ref=e7]
  - button \"Mit Google anmelden\" [ref=e8]
</ui_state>";

#[tokio::test]
async fn a_german_caller_gets_the_field_they_name() {
    let Some(c) = classifier("german") else {
        return;
    };
    let (choice, confidence) = pick(&c, SIGNIN_DE, "das Passwortfeld").await;
    assert!(
        ["e4"].contains(&choice.as_str()),
        "{choice} at {confidence}"
    );
    let (choice, _) = pick(&c, SIGNIN_DE, "mit Google anmelden").await;
    assert_eq!(choice, "e8");
}

#[tokio::test]
async fn a_near_name_where_nothing_fits_is_not_a_confident_pick() {
    let Some(c) = classifier("none") else {
        return;
    };
    let (choice, confidence) = pick(&c, SIGNIN_DE, "mit Apple anmelden").await;
    assert!(
        confidence < 0.5,
        "no Apple button: {choice} at {confidence} would be clicked"
    );
}

const SHOP_FR: &str = "<ui_state>
- list \"Panier\" [ref=e1]:
  - listitem [ref=e2]:
    - link \"Tasse rouge\" [ref=e3]
    - button \"Supprimer\" [ref=e4]
  - listitem [ref=e5]:
    - link \"Théière bleue\" [ref=e6]
    - button \"Supprimer\" [ref=e7]
  - listitem [ref=e8]:
    - link \"Bol vert\" [ref=e9]
    - button \"Supprimer\" [ref=e10]
- button \"Passer la commande\" [ref=e11]
</ui_state>";

#[tokio::test]
async fn a_french_caller_removes_the_row_they_name_or_count() {
    let Some(c) = classifier("french") else {
        return;
    };
    let (choice, _) = pick(&c, SHOP_FR, "supprime la théière").await;
    assert_eq!(choice, "e7");
    let (choice, _) = pick(&c, SHOP_FR, "supprime le troisième").await;
    assert_eq!(choice, "e10");
}

#[tokio::test]
async fn a_screen_read_once_answers_as_a_screen_read_for_each_question() {
    let Some(c) = classifier("cache") else {
        return;
    };
    // `choose` on a tree of the caller's own reads the option texts for the question;
    // questions on a `<ui_state>` text read them once per screen and keep them.
    let tree = ScreenTree::parse(SHOP_FR);
    for words in [
        "supprime la théière",
        "supprime le troisième",
        "passe la commande",
    ] {
        let fresh = c.choose(words, &tree, &options(SHOP_FR)).expect("options");
        for _ in 0..2 {
            let (_, confidence, probabilities) = ask(&c, SHOP_FR, words).await;
            assert_eq!(probabilities.len(), fresh.probabilities.len());
            for (a, b) in probabilities.iter().zip(&fresh.probabilities) {
                assert!((a - b).abs() < 1e-12, "{words}: {a} vs {b}");
            }
            assert!((confidence - fresh.confidence).abs() < 1e-12);
        }
    }
}
