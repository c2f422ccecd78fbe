//! Whether an answer is about the job (issue 37): its techniques and subjects are weighed
//! against the vocabulary of the job's title, level and description. A concrete story from
//! another trade is off-topic however well it is told.

use super::vocab::{FIELDS, STOPWORDS};
use super::words::{has_at_word_start, words_of};

/// How many distinct terms of the job's fields and of other fields the answer uses.
#[derive(Debug, Default, Clone, Copy)]
pub struct Relevance {
    pub job_terms: usize,
    pub other_terms: usize,
}

/// `job_text` is the job's title, category and description, lower case; `skills` the skills
/// it asks for; `answer` the answer in lower case.
pub fn relevance(job_text: &str, skills: &[String], answer: &str) -> Relevance {
    let in_job = |keys: &[&str]| keys.iter().any(|k| job_text.contains(k));
    let mut mine: Vec<&str> = Vec::new();
    let mut theirs: Vec<&str> = Vec::new();
    for f in FIELDS {
        let list = if in_job(f.keys) {
            &mut mine
        } else {
            &mut theirs
        };
        list.extend(f.keys.iter().map(|k| k.trim()));
        list.extend(f.techniques);
        list.extend(f.subjects);
    }
    // The job's own words: its title and the subject words of its description.
    mine.extend(words_of(job_text).filter(|w| w.len() >= 5 && !STOPWORDS.contains(w)));
    mine.extend(skills.iter().map(String::as_str));
    // A term both fields use says nothing about which one the answer is in.
    theirs.retain(|t| !mine.contains(t));
    let used = |terms: &mut Vec<&str>| {
        terms.sort_unstable();
        terms.dedup();
        terms
            .iter()
            .filter(|t| has_at_word_start(answer, t))
            .count()
    };
    Relevance {
        job_terms: used(&mut mine),
        other_terms: used(&mut theirs),
    }
}

impl Relevance {
    /// Off-topic: a concrete answer that speaks another field's language more than the job's,
    /// or (asked about the work itself) none of the job's at all.
    pub fn off_topic(self, concrete: bool, asks_about_the_work: bool) -> bool {
        concrete
            && ((self.other_terms >= 2 && self.other_terms > 2 * self.job_terms)
                || (self.job_terms == 0 && (self.other_terms >= 1 || asks_about_the_work)))
    }
}
