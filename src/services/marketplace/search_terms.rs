//! Words of a free-text car search, and trigram similarity (the measure pg_trgm uses) that
//! decides which listed words a misspelt query word stands for.

use std::collections::HashSet;

/// Query words that carry no meaning for a car search.
const STOP_WORDS: [&str; 24] = [
    "a", "an", "and", "the", "with", "for", "in", "of", "on", "or", "to", "my", "me", "i", "car",
    "cars", "looking", "want", "need", "find", "show", "any", "some", "is",
];

/// Similarity at which a listed word counts as the same word misspelt (pg_trgm's default).
pub const MIN_SIMILARITY: f64 = 0.3;

/// Lowercased alphanumeric words of `text`, in order.
pub fn words(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect()
}

/// The words of a search query worth matching: stop words dropped, at most 12 (a longer query
/// is prose, and each word costs a lookup).
pub fn query_words(query: &str) -> Vec<String> {
    let mut seen = HashSet::new();
    words(query)
        .into_iter()
        .filter(|w| !STOP_WORDS.contains(&w.as_str()))
        .filter(|w| seen.insert(w.clone()))
        .take(12)
        .collect()
}

/// pg_trgm's trigrams of one word: padded with two spaces before and one after.
fn trigrams(word: &str) -> HashSet<String> {
    let padded: Vec<char> = format!("  {word} ").chars().collect();
    padded.windows(3).map(|w| w.iter().collect()).collect()
}

/// The word's own trigrams (no padding): what a trigram index can look up.
pub fn inner_trigrams(word: &str) -> Vec<String> {
    let chars: Vec<char> = word.chars().collect();
    let mut out: Vec<String> = chars.windows(3).map(|w| w.iter().collect()).collect();
    out.sort();
    out.dedup();
    out
}

/// Shared trigrams over all trigrams of the two words, 0 to 1.
pub fn similarity(a: &str, b: &str) -> f64 {
    let (ta, tb) = (trigrams(a), trigrams(b));
    let shared = ta.intersection(&tb).count();
    let all = ta.len() + tb.len() - shared;
    if all == 0 {
        0.0
    } else {
        shared as f64 / all as f64
    }
}

/// Of `candidates`, the (at most three) most similar to `word` above the threshold, best
/// first; the word itself is not among them.
pub fn corrections(word: &str, candidates: &[String]) -> Vec<String> {
    let mut scored: Vec<(f64, &String)> = candidates
        .iter()
        .filter(|c| c.as_str() != word)
        .map(|c| (similarity(word, c), c))
        .filter(|(s, _)| *s >= MIN_SIMILARITY)
        .collect();
    scored.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.1.cmp(b.1)));
    scored.into_iter().take(3).map(|(_, c)| c.clone()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn misspelt_makes_and_models_are_close() {
        assert!(similarity("toyta", "toyota") >= MIN_SIMILARITY);
        assert!(similarity("corola", "corolla") >= MIN_SIMILARITY);
        assert!(similarity("toyta", "tesla") < MIN_SIMILARITY);
        assert_eq!(similarity("civic", "civic"), 1.0);
        let vocab = ["toyota", "tesla", "corolla", "camry"].map(String::from);
        assert_eq!(corrections("toyta", &vocab), ["toyota"]);
        assert_eq!(corrections("corola", &vocab), ["corolla"]);
    }

    #[test]
    fn query_words_drop_noise() {
        assert_eq!(
            query_words("A Toyota with the Sunroof, sunroof!"),
            ["toyota", "sunroof"]
        );
        assert_eq!(inner_trigrams("bmw"), ["bmw"]);
        assert!(inner_trigrams("ab").is_empty());
    }
}
