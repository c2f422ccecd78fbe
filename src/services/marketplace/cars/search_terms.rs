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

/// Letters and digits of `name`, lowercase: "CR-V" and "crv" alike.
pub fn compact(name: &str) -> String {
    name.chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect()
}

/// Whether `a` becomes `b` by one edit: a letter added, dropped, changed, or two neighbours
/// swapped ("bmv", "bwm" and "bm" for "bmw").
pub fn one_edit_apart(a: &str, b: &str) -> bool {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    let (short, long) = if a.len() <= b.len() {
        (&a, &b)
    } else {
        (&b, &a)
    };
    match long.len() - short.len() {
        0 => {
            let diff: Vec<usize> = (0..a.len()).filter(|&i| a[i] != b[i]).collect();
            match diff[..] {
                [_] => true,
                [i, j] => j == i + 1 && a[i] == b[j] && a[j] == b[i],
                _ => false,
            }
        }
        1 => {
            let i = (0..short.len())
                .find(|&i| short[i] != long[i])
                .unwrap_or(short.len());
            short[i..] == long[i + 1..]
        }
        _ => false,
    }
}

/// Query words of at most this many letters are forgiven one typo against the catalogue's
/// make and model words (trigrams see too little of them: "bmv" shares none with "bmw").
pub const SHORT_WORD: usize = 5;

/// The public catalogue's make and model names, for what trigrams cannot find: a short
/// word one typo away from a name's word, and a name written without its punctuation.
#[derive(Debug, Default)]
pub struct Names {
    /// Lowercase words of the names, of letters only, at least three.
    words: Vec<String>,
    /// A name of several words by its [`compact`] form ("crv" for "cr-v").
    compact: Vec<(String, String)>,
}

impl Names {
    pub fn new<'a>(names: impl IntoIterator<Item = &'a str>) -> Self {
        let mut out = Self::default();
        for name in names {
            let ws = words(name);
            if ws.len() > 1 {
                out.compact.push((compact(name), name.to_lowercase()));
            }
            out.words.extend(
                ws.into_iter()
                    .filter(|w| w.chars().count() >= 3 && w.chars().all(char::is_alphabetic)),
            );
        }
        out.words.sort();
        out.words.dedup();
        out.compact.sort();
        out.compact.dedup_by(|a, b| a.0 == b.0);
        out
    }

    /// Whether `word` is a word of a make or model name.
    pub fn has_word(&self, word: &str) -> bool {
        self.words
            .binary_search_by(|w| w.as_str().cmp(word))
            .is_ok()
    }

    /// What `word` may also stand for: names it spells without their punctuation, and, when
    /// it is short and no name's word itself, the words one typo away (at most three).
    pub fn alternatives(&self, word: &str) -> Vec<String> {
        let mut out: Vec<String> = self
            .compact
            .iter()
            .filter(|(c, _)| c == word)
            .map(|(_, name)| name.clone())
            .collect();
        let short = (3..=SHORT_WORD).contains(&word.chars().count())
            && word.chars().all(char::is_alphabetic);
        if short
            && self
                .words
                .binary_search_by(|w| w.as_str().cmp(word))
                .is_err()
        {
            out.extend(
                self.words
                    .iter()
                    .filter(|w| one_edit_apart(word, w))
                    .take(3)
                    .cloned(),
            );
        }
        out
    }
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
    fn short_typos_and_names_without_punctuation() {
        assert!(one_edit_apart("bmv", "bmw"));
        assert!(one_edit_apart("bwm", "bmw"));
        assert!(one_edit_apart("bm", "bmw") && one_edit_apart("bmww", "bmw"));
        assert!(!one_edit_apart("bmw", "bmw"));
        assert!(!one_edit_apart("vbm", "bmw"));
        assert!(!one_edit_apart("kia", "bmw"));
        let names = Names::new(["BMW", "Honda", "CR-V", "Ford", "F-150", "Model 3", "Kia"]);
        assert_eq!(names.alternatives("bmv"), ["bmw"]);
        assert_eq!(names.alternatives("crv"), ["cr-v"]);
        assert_eq!(names.alternatives("f150"), ["f-150"]);
        assert_eq!(names.alternatives("model3"), ["model 3"]);
        assert!(names.alternatives("bmw").is_empty());
        assert!(names.alternatives("kia").is_empty());
        // Long words are the trigrams' to correct; digits are not typos.
        assert!(names.alternatives("hondaa").is_empty());
        assert!(names.alternatives("150").is_empty());
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
