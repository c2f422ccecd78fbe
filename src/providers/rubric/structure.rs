//! How an answer's parts connect (issue 37): sentences, clauses with a first-person subject,
//! a verb and what it was done to, comma lists, answer templates, and words that do not form
//! sentences. The rubric credits techniques, results and reasoning only where they sit in the
//! story this finds, so a list of terms or numbers imitates nothing.

use super::vocab::{
    ACTION_VERBS, FUNCTION, GENERIC, MEASURE, OTHER_VERBS, OUTCOME, PROBLEM, SITUATION,
    TEMPLATE_LABELS, VAGUE,
};

/// What the structure shows; every count is over the whole answer.
#[derive(Debug, Default)]
pub struct Structure {
    /// Clauses where the candidate (or their team) acts on something named.
    pub actions: usize,
    /// Whether one of those has "I" as its subject, not only "we".
    pub own_actions: bool,
    /// First-person clauses whose verb acts on nothing ("I led, I shipped").
    pub bare_verbs: usize,
    /// 1 for a situation with a named problem or setting, 0.4 for a thin one, else 0.
    pub situation: f64,
    /// Sentences opened by a template label ("Situation:", "R:").
    pub template_labels: usize,
    /// Comma-list items without a verb: terms, and those that are only numbers.
    pub listed_terms: usize,
    pub listed_numbers: usize,
    /// Lower-case text of the story (sentences with an action or the situation, list items
    /// left out): where techniques and reasoning count.
    pub story: String,
    /// The story from the first action on: where a result counts, since it must follow the
    /// work that produced it.
    pub after_work: String,
    /// Sentences with an action, for who else took part.
    pub action_sentences: Vec<String>,
    /// An outcome word or a number anywhere, connected or not.
    pub claims_result: bool,
    pub incoherent: bool,
    pub echoes_question: bool,
}

/// Words a verb may stand behind its subject with: "I then checked", "we have moved".
#[rustfmt::skip]
const BETWEEN: &[&str] = &[
    "then", "also", "first", "now", "would", "will", "have", "had", "usually", "always",
    "finally", "later", "still", "never", "often", "could", "did", "personally", "immediately",
    "carefully", "quickly", "together", "both", "each", "all", "just", "really", "myself",
];

#[rustfmt::skip]
const DETERMINERS: &[&str] = &["the", "a", "an", "my", "our", "their", "its", "every", "each"];
#[rustfmt::skip]
const PREPOSITIONS: &[&str] = &[
    "of", "in", "on", "at", "by", "for", "from", "to", "into", "with", "than", "against",
    "about", "within",
];
#[rustfmt::skip]
const CONJUNCTIONS: &[&str] = &["and", "or", "but", "while", "because", "than", "whether"];
const SUBJECTS: &[&str] = &["i", "we", "they", "he", "she"];

fn tokens(text: &str) -> Vec<&str> {
    text.split_whitespace()
        .map(|t| {
            t.trim_matches(|c: char| !(c.is_alphanumeric() || matches!(c, '%' | '£' | '$' | '€')))
        })
        .filter(|t| !t.is_empty())
        .collect()
}

fn is_number(t: &str) -> bool {
    t.chars().any(|c| c.is_ascii_digit())
        && t.chars()
            .all(|c| !c.is_alphabetic() || c == 'k' || c == 'm' || c == 'x')
}

/// A word that names something: not grammar, not a placeholder, not a bare number.
fn concrete(t: &str) -> bool {
    t.len() >= 2 && !is_number(t) && !FUNCTION.contains(&t) && !GENERIC.contains(&t)
}

fn is_outcome_verb(t: &str) -> bool {
    OUTCOME.contains(&t) && !ACTION_VERBS.contains(&t)
}

/// A verb of doing: a listed one, or a past form ("re-slotted", "trialled") that is not an
/// outcome ("reduced" says what changed, not what was done).
fn is_action_verb(t: &str) -> bool {
    (ACTION_VERBS.contains(&t) && !OUTCOME.contains(&t))
        || (t.len() >= 5
            && t.ends_with("ed")
            && !is_outcome_verb(t)
            && !OTHER_VERBS.contains(&t)
            && !GENERIC.contains(&t))
}

fn is_verb(t: &str) -> bool {
    ACTION_VERBS.contains(&t) || OTHER_VERBS.contains(&t) || OUTCOME.contains(&t)
}

enum Clause {
    /// A verb of doing with a named object; `own` when the subject is "I".
    Action {
        own: bool,
    },
    /// A first-person verb with nothing named after it.
    Bare,
    Other,
}

/// Reads one clause; `carried` is the subject of the clause before it in the sentence, for
/// "I profiled it and found …" where "found" has no subject of its own.
fn clause(words: &[&str], carried: Option<bool>) -> (Clause, Option<bool>) {
    let subject = words
        .iter()
        .position(|w| *w == "i" || *w == "we")
        .map(|i| (i, words[i] == "i"));
    // The verb stands right behind its subject, or behind "then", "have", "quickly"….
    let verb_after = |from: usize| {
        let window: Vec<usize> = (from..words.len().min(from + 3))
            .take_while(|j| {
                *j == from || BETWEEN.contains(&words[*j - 1]) || words[*j - 1].ends_with("ly")
            })
            .collect();
        window
            .iter()
            .copied()
            .find(|j| is_action_verb(words[*j]))
            .or_else(|| window.iter().copied().find(|j| is_verb(words[*j])))
    };
    // "…, and agreed with her a time": a clause that opens with a verb shares the subject
    // of the one before it, even when a "we" comes later inside it.
    let opening = words
        .iter()
        .position(|w| !matches!(*w, "and" | "then" | "so" | "but") && !BETWEEN.contains(w))
        .filter(|i| is_action_verb(words[*i]));
    let (verb, own) = match (opening, subject, carried) {
        (Some(v), _, Some(own)) => (Some(v), Some(own)),
        (_, Some((i, own)), _) => (verb_after(i + 1), Some(own)),
        _ => (None, None),
    };
    let Some(v) = verb else {
        // A clause without a verb keeps the subject for the next one only if it had one.
        return (Clause::Other, subject.map(|s| s.1).or(carried));
    };
    let own = own.unwrap_or(false);
    let object = &words[v + 1..];
    let named = object.iter().any(|w| concrete(w))
        || object
            .iter()
            .any(|w| matches!(*w, "it" | "them" | "her" | "him" | "both"));
    let kind = if is_action_verb(words[v]) && named {
        Clause::Action { own }
    } else if !named && subject.is_some() {
        Clause::Bare
    } else {
        Clause::Other
    };
    (kind, Some(own))
}

/// Sentences: split at ., !, ? and ; (a full stop inside a number is not one) and lines.
fn sentences(answer: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let chars: Vec<char> = answer.chars().collect();
    for (i, c) in chars.iter().enumerate() {
        let next = chars.get(i + 1).copied();
        let ends = matches!(c, '!' | '?' | ';' | '\n')
            || (*c == '.' && next.is_none_or(char::is_whitespace));
        if ends {
            if !cur.trim().is_empty() {
                out.push(cur.trim().to_lowercase());
            }
            cur.clear();
        } else {
            cur.push(*c);
        }
    }
    if !cur.trim().is_empty() {
        out.push(cur.trim().to_lowercase());
    }
    out
}

/// Grammar that no sentence has: a determiner before a preposition or a pronoun, a sentence
/// ending on "the", "with" or "we". Shuffled words make these; written sentences seldom do.
fn faults(words: &[&str]) -> usize {
    let mut n = 0;
    for pair in words.windows(2) {
        let (a, b) = (pair[0], pair[1]);
        if DETERMINERS.contains(&a)
            && (DETERMINERS.contains(&b)
                || PREPOSITIONS.contains(&b)
                || SUBJECTS.contains(&b)
                || CONJUNCTIONS.contains(&b))
        {
            n += 1;
        }
    }
    if let Some(last) = words.last() {
        if DETERMINERS.contains(last)
            || CONJUNCTIONS.contains(last)
            || SUBJECTS.contains(last)
            || (PREPOSITIONS.contains(last) && words.len() > 3)
        {
            n += 1;
        }
    }
    n
}

/// The first five letters, so "handled" meets "handle" and "options" "option".
fn stem(w: &str) -> &str {
    match w.char_indices().nth(5) {
        Some((i, _)) => &w[..i],
        None => w,
    }
}

/// Whether the answer is the question's words handed back: almost every word that names
/// something is one of the question's, and at most three are new.
fn echoes(question: &str, answer: &str) -> bool {
    let q = question.to_lowercase();
    let q_stems: Vec<&str> = tokens(&q)
        .into_iter()
        .filter(|w| concrete(w))
        .map(stem)
        .collect();
    let a = answer.to_lowercase();
    let words: Vec<&str> = tokens(&a).into_iter().filter(|w| concrete(w)).collect();
    if words.len() < 3 {
        return false;
    }
    let mut new: Vec<&str> = words
        .iter()
        .map(|w| stem(w))
        .filter(|s| !q_stems.contains(s))
        .collect();
    let share = 1.0 - new.len() as f64 / words.len() as f64;
    new.sort_unstable();
    new.dedup();
    share >= 0.6 && new.len() <= 3
}

pub fn read(question: &str, answer: &str) -> Structure {
    let mut s = Structure {
        echoes_question: echoes(question, answer),
        ..Default::default()
    };
    let (mut total_faults, mut total_words) = (0, 0);
    let mut worked = false;
    let mut thin_setting = false;
    let mut story = Vec::new();
    let mut after = Vec::new();
    for sentence in sentences(answer) {
        // A template label opens the sentence: read what follows it.
        let body = match sentence.split_once(':') {
            Some((label, rest)) if TEMPLATE_LABELS.contains(&label.trim()) => {
                s.template_labels += 1;
                rest.trim().to_owned()
            }
            _ => sentence.clone(),
        };
        let mut kept = Vec::new();
        let mut acted = false;
        let mut carried = None;
        let segments: Vec<&str> = body.split([',', ':']).collect();
        let many = segments.len() >= 3;
        for seg in &segments {
            let words = tokens(seg);
            total_faults += faults(&words);
            total_words += words.len();
            let verbless = !words.iter().any(|w| is_verb(w) || is_action_verb(w))
                && !words.iter().any(|w| SUBJECTS.contains(w));
            // A list item: one of several short segments with no verb.
            if many && verbless && (1..=5).contains(&words.len()) {
                if words.iter().any(|w| is_number(w)) || MEASURE.iter().any(|m| seg.contains(m)) {
                    s.listed_numbers += 1;
                } else {
                    s.listed_terms += 1;
                }
                if words.iter().any(|w| is_number(w)) || OUTCOME.iter().any(|m| seg.contains(m)) {
                    s.claims_result = true;
                }
                carried = None;
                continue;
            }
            kept.push(*seg);
            // Clauses: "and", "then" and "so" join actions inside a segment.
            let mut start = 0;
            for (i, w) in words.iter().enumerate() {
                let split = matches!(*w, "and" | "then" | "so" | "but") && i > start;
                if split || i + 1 == words.len() {
                    let end = if split { i } else { i + 1 };
                    let (kind, next) = clause(&words[start..end], carried);
                    match kind {
                        Clause::Action { own } => {
                            s.actions += 1;
                            s.own_actions |= own;
                            acted = true;
                        }
                        Clause::Bare => s.bare_verbs += 1,
                        Clause::Other => {}
                    }
                    carried = next;
                    start = i + 1;
                }
            }
        }
        let text = kept.join(",");
        if OUTCOME.iter().any(|m| text.contains(m))
            || MEASURE.iter().any(|m| text.contains(m))
            || text.chars().any(|c| c.is_ascii_digit())
        {
            s.claims_result = true;
        }
        let named = tokens(&text).into_iter().filter(|w| concrete(w)).count();
        // Filler ("I think", "passionate") sets no scene, whatever else the sentence names.
        let filler = VAGUE.iter().any(|m| format!(" {text} ").contains(m));
        let padded = format!(" {text} ");
        let sets_scene = !filler
            && (SITUATION.iter().any(|m| padded.contains(m))
                || PROBLEM.iter().any(|m| padded.contains(m)));
        let setting = sets_scene && named >= 2;
        if setting && named >= 3 {
            s.situation = 1.0;
        } else if setting {
            thin_setting = true;
        }
        worked |= acted;
        if acted || setting {
            story.push(text.clone());
        }
        if worked {
            after.push(text.clone());
        }
        if acted {
            s.action_sentences.push(text);
        }
    }
    if s.situation == 0.0 && thin_setting {
        s.situation = 0.4;
    }
    s.story = format!(" {} ", story.join(". "));
    s.after_work = format!(" {} ", after.join(". "));
    // Two faults are chance; one in every twelve words is not writing.
    s.incoherent = total_faults >= 3 && total_faults * 12 >= total_words;
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn actions_need_what_they_were_done_to() {
        let s = read("", "I led, I profiled, I optimized, I shipped.");
        assert_eq!((s.actions, s.bare_verbs), (0, 4));
        let s = read(
            "",
            "I profiled it and found lock contention in the ledger, replaced the mutex with actors.",
        );
        assert_eq!((s.actions, s.bare_verbs), (3, 0));
        assert!(s.own_actions);
    }

    #[test]
    fn comma_lists_are_items_not_story() {
        let s = read(
            "",
            "Flame graphs, p99 dashboards, caching, indexing, circuit breakers.",
        );
        assert_eq!((s.listed_terms, s.actions), (5, 0));
        assert!(s.story.trim().is_empty());
        let s = read("", "I led a migration with logical replication, dual writes behind a flag and a checksum job for two weeks.");
        assert_eq!(s.listed_terms, 0);
    }

    #[test]
    fn templates_and_placeholders_make_no_situation() {
        let s = read("", "Situation: a service was slow. Task: make it fast. Action: I analysed the problem and implemented a solution. Result: it was faster.");
        assert_eq!((s.template_labels, s.actions, s.situation), (4, 0, 0.0));
        let s = read(
            "",
            "At my last company the ledger service timed out every month-end.",
        );
        assert_eq!(s.situation, 1.0);
    }

    #[test]
    fn shuffled_words_and_echoes_are_caught() {
        assert!(read("", "Xero in transaction every matched the I statements against. Reconciled zero the to account month-end. £3,400 out by bank months two the placement my in.").incoherent);
        assert!(!read("", "I asked what the price was compared with, showed our payback model with their own numbers and agreed a phased start.").incoherent);
        assert!(read("Tell me about feedback you received that changed how you work.", "Feedback I received that changed how I work? I received feedback and it changed how I work.").echoes_question);
    }
}
