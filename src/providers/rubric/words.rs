//! Word matching the rubric's readers share.

/// An occurrence that starts a word, so "pressure test" meets "pressure tested" and "race"
/// does not meet "trace".
pub(super) fn has_at_word_start(text: &str, term: &str) -> bool {
    let is_word = |c: char| c.is_alphanumeric() || c == '-';
    text.match_indices(term)
        .any(|(i, _)| !text[..i].chars().next_back().is_some_and(is_word))
}

pub(super) fn words_of(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !c.is_alphanumeric() && c != '-' && c != '\'')
        .filter(|w| !w.is_empty())
}
