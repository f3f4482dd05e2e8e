//! One language per call: a line with per-language variants is said in the
//! call's language wherever lines are said — reply lines, announce lines (a precheck's outcome
//! is said by its reply), the goodbye, a flow's confirm lines.
//!
//! A line's variants are written by language tag (`"es"`, `"fr-CA"`); [`for_language`] picks the
//! call's: the variant of its whole tag, then of its primary language, then the default lines.

/// The lines to say in a call in `language` (BCP 47, like `es-ES`): the variant whose tag is
/// the whole tag (letter case and `_` for `-` aside), else the one of its primary language
/// (`es`), else `default`.
///
/// ```
/// use hark_tools::language::for_language;
/// let variants = vec![("es".to_string(), vec!["Hola"]), ("fr-CA".to_string(), vec!["Allô"])];
/// assert_eq!(for_language("es-ES", &["Hello"], &variants), ["Hola"]);
/// assert_eq!(for_language("fr_ca", &["Hello"], &variants), ["Allô"]);
/// assert_eq!(for_language("fr-FR", &["Hello"], &variants), ["Hello"]);
/// ```
pub fn for_language<'a, T>(
    language: &str,
    default: &'a [T],
    variants: &'a [(String, Vec<T>)],
) -> &'a [T] {
    variant(language, variants).map_or(default, Vec::as_slice)
}

/// The variant [`for_language`] picks for `language`, or `None` when it would say the default.
pub fn variant<'a, T>(language: &str, variants: &'a [(String, Vec<T>)]) -> Option<&'a Vec<T>> {
    let tag = normal(language);
    let primary = tag.split('-').next().unwrap_or("");
    variants
        .iter()
        .find(|(t, _)| normal(t) == tag)
        .or_else(|| variants.iter().find(|(t, _)| normal(t) == primary))
        .map(|(_, lines)| lines)
}

fn normal(tag: &str) -> String {
    tag.trim().replace('_', "-").to_ascii_lowercase()
}
