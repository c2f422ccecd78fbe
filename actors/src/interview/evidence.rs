//! What an answer contains: the findings every score, piece of feedback and report line is
//! derived from, so that none of them contradicts another (see docs/decisions.md, "Interview
//! rubric (issue 20)"); the score of an answer built on them ([`AnswerScore`]), and the rule
//! that holds a score to its own findings ([`contradiction`]).

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// One kind of evidence a good answer carries.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, ToSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Element {
    /// The situation or task the story is about.
    Situation,
    /// What the candidate did themselves.
    Actions,
    /// Techniques and tools that fit the job.
    Techniques,
    /// What changed: numbers, before and after.
    Result,
    /// Options weighed and why one was chosen.
    TradeOffs,
    /// How others were involved (behavioural questions).
    Collaboration,
}

impl Element {
    pub const ALL: [Element; 6] = [
        Element::Situation,
        Element::Actions,
        Element::Techniques,
        Element::Result,
        Element::TradeOffs,
        Element::Collaboration,
    ];

    /// Whether a question of `category` asks for this element: techniques and trade-offs for
    /// technical and problem-solving questions, how others were involved for behavioural ones.
    pub fn applies(self, category: &str) -> bool {
        let behavioural = matches!(category, "communication" | "cultural_fit");
        match self {
            Element::Techniques | Element::TradeOffs => !behavioural,
            Element::Collaboration => behavioural,
            _ => true,
        }
    }

    pub fn strength(self) -> &'static str {
        match self {
            Element::Situation => "Set out the situation and the task",
            Element::Actions => "Described their own actions step by step",
            Element::Techniques => "Named techniques and tools that fit the job",
            Element::Result => "Gave a result: numbers, a before and after, what changed",
            Element::TradeOffs => "Weighed options and explained the trade-offs",
            Element::Collaboration => "Showed how others were involved",
        }
    }

    pub fn gap(self) -> &'static str {
        match self {
            Element::Situation => "Left out the situation or the task",
            Element::Actions => "Did not say what they did themselves",
            Element::Techniques => "Named no techniques or tools that fit the job",
            Element::Result => "Gave no result: no numbers, no before and after",
            Element::TradeOffs => "Did not explain the trade-offs behind decisions",
            Element::Collaboration => "Did not show how others were involved",
        }
    }

    /// A question about this element, for an answer that left it out.
    pub fn follow_up(self) -> &'static str {
        match self {
            Element::Situation => "What was the situation, and what were you asked to achieve?",
            Element::Actions => "What did you do yourself, step by step?",
            Element::Techniques => "Which techniques or tools did you use, and why those?",
            Element::Result => {
                "What changed as a result? Can you put a number or a before and after on it?"
            }
            Element::TradeOffs => {
                "Which other options did you consider, and why did you choose this one?"
            }
            Element::Collaboration => "Who else was involved, and how did you work with them?",
        }
    }

    /// The element and side (true: strength) a feedback line states, if it is one of ours.
    pub fn of_text(text: &str) -> Option<(Element, bool)> {
        Element::ALL.into_iter().find_map(|e| {
            if text.starts_with(e.strength()) {
                Some((e, true))
            } else if text.starts_with(e.gap()) {
                Some((e, false))
            } else {
                None
            }
        })
    }

    /// "a, b and c" of the elements' noun phrases.
    pub fn list(els: &[Element]) -> String {
        let nouns: Vec<&str> = els.iter().map(|e| e.noun()).collect();
        match nouns.as_slice() {
            [] => String::new(),
            [one] => (*one).to_owned(),
            [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
        }
    }

    /// Lower-case noun phrase for prose ("the result").
    pub fn noun(self) -> &'static str {
        match self {
            Element::Situation => "the situation",
            Element::Actions => "their own actions",
            Element::Techniques => "fitting techniques",
            Element::Result => "the result",
            Element::TradeOffs => "the trade-offs",
            Element::Collaboration => "who else was involved",
        }
    }
}

/// Why what looks like evidence is not (issue 37): the answer imitates an element without
/// the story that would make it one. Each flaw withholds the credit of the element it imitates
/// and keeps the answer out of the strong band.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, ToSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Flaw {
    /// Technique names in a list, not in anything the candidate did.
    KeywordList,
    /// "Situation: … Task: … Action: … Result: …" with nothing specific under the labels.
    EmptyTemplate,
    /// "I led, I built, I shipped": verbs without what they were done to.
    BareVerbs,
    /// Numbers or outcomes without the work that produced them.
    ResultWithoutWork,
    /// A concrete answer about other work than the job's.
    OffTopic,
    /// The question's own words handed back.
    EchoesQuestion,
    /// Words that do not form sentences (a good answer shuffled, say).
    Incoherent,
}

impl Flaw {
    /// The clause the per-answer feedback states it with ("It lists techniques …").
    pub fn feedback(self) -> &'static str {
        match self {
            Flaw::KeywordList => "lists techniques without saying what you did with them",
            Flaw::EmptyTemplate => {
                "follows a situation-task-action-result template with nothing specific in it"
            }
            Flaw::BareVerbs => "names actions without saying what they were done to",
            Flaw::ResultWithoutWork => "gives a result without the work that produced it",
            Flaw::OffTopic => "is off-topic: about other work than this role's",
            Flaw::EchoesQuestion => "hands the question back instead of answering it",
            Flaw::Incoherent => "does not read as connected sentences",
        }
    }

    /// The report's line for it (the same words, in the third person).
    pub fn report_line(self) -> &'static str {
        match self {
            Flaw::KeywordList => "Listed techniques without saying what they did with them",
            Flaw::EmptyTemplate => "Followed an answer template with nothing specific in it",
            Flaw::BareVerbs => "Named actions without saying what they were done to",
            Flaw::ResultWithoutWork => "Gave a result without the work that produced it",
            Flaw::OffTopic => "Gave an off-topic answer about other work than this role's",
            Flaw::EchoesQuestion => "Handed a question back instead of answering it",
            Flaw::Incoherent => "Gave an answer that does not read as connected sentences",
        }
    }
}

/// The findings for one answer: which applicable elements it shows and which it leaves out,
/// a short phrase of the answer a follow-up question may quote, and what only imitates
/// evidence.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct Evidence {
    pub found: Vec<Element>,
    pub missing: Vec<Element>,
    #[serde(default)]
    pub quote: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub flaws: Vec<Flaw>,
}

impl Evidence {
    /// The fraction of the applicable elements found.
    pub fn share(&self) -> f64 {
        let all = self.found.len() + self.missing.len();
        if all == 0 {
            0.0
        } else {
            self.found.len() as f64 / all as f64
        }
    }

    pub fn strengths(&self) -> Vec<String> {
        self.found.iter().map(|e| e.strength().to_owned()).collect()
    }

    pub fn weaknesses(&self) -> Vec<String> {
        self.missing.iter().map(|e| e.gap().to_owned()).collect()
    }
}

/// Scores at or above this are a strong answer; at or below [`WEAK`], a weak one.
pub const STRONG: f64 = 70.0;
pub const WEAK: f64 = 40.0;

/// The verdict word of a composite score, shared by per-answer feedback and its checks.
pub fn verdict(composite: f64) -> &'static str {
    match composite {
        c if c >= STRONG => "Strong answer",
        c if c >= 55.0 => "Good answer",
        c if c > WEAK => "Adequate answer",
        _ => "Weak answer",
    }
}

/// The rubric result for one answer (0–100 per category).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, ToSchema)]
pub struct AnswerScore {
    pub technical: f64,
    pub communication: f64,
    pub problem_solving: f64,
    pub cultural_fit: f64,
    /// Weighted mean of the four, the question's own category counting double.
    pub composite_score: f64,
    /// The findings the scores and feedback come from (absent for scores stored before
    /// issue 20 and for model replies that gave none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub evidence: Option<Evidence>,
    pub summary: String,
    #[serde(default)]
    pub skills: Vec<String>,
    #[serde(default)]
    pub strengths: Vec<String>,
    #[serde(default)]
    pub weaknesses: Vec<String>,
    #[serde(default)]
    pub red_flags: Vec<String>,
    /// A short quote-worthy point of the answer, if any.
    #[serde(default)]
    pub highlight: Option<String>,
}

/// Why a strong composite cannot stand for an answer with these flaws: a keyword list or an
/// empty template is not a strong answer, whoever scored it.
pub fn overrated(composite: f64, flaws: &[Flaw]) -> Option<String> {
    let flaw = flaws.first()?;
    (composite >= STRONG).then(|| {
        format!(
            "composite {composite} is strong but the answer {}",
            flaw.feedback()
        )
    })
}

/// Why a score cannot stand as it is: its numbers contradict its own findings, or a finding
/// is both a strength and a weakness. Both interviewers are held to this; the model's reply
/// is replaced by the built-in scorer's when it fails.
pub fn contradiction(score: &AnswerScore) -> Option<String> {
    if let Some(both) = score
        .strengths
        .iter()
        .find(|s| score.weaknesses.iter().any(|w| w.eq_ignore_ascii_case(s)))
    {
        return Some(format!("\"{both}\" is both a strength and a weakness"));
    }
    let ev = score.evidence.as_ref()?;
    if let Some(e) = ev.found.iter().find(|e| ev.missing.contains(e)) {
        return Some(format!("{e:?} is both found and missing"));
    }
    let c = score.composite_score;
    if let Some(why) = overrated(c, &ev.flaws) {
        return Some(why);
    }
    let share = ev.share();
    if c >= STRONG && share < 0.5 {
        return Some(format!(
            "composite {c} is strong but only {:.0} % of the evidence was found",
            share * 100.0
        ));
    }
    if c <= WEAK && share >= 0.75 {
        return Some(format!(
            "composite {c} is weak but {:.0} % of the evidence was found",
            share * 100.0
        ));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scored(composite: f64, flaws: Vec<Flaw>) -> AnswerScore {
        AnswerScore {
            technical: composite,
            communication: composite,
            problem_solving: composite,
            cultural_fit: composite,
            composite_score: composite,
            evidence: Some(Evidence {
                found: Element::ALL.to_vec(),
                missing: vec![],
                quote: None,
                flaws,
            }),
            summary: String::new(),
            skills: vec![],
            strengths: vec![],
            weaknesses: vec![],
            red_flags: vec![],
            highlight: None,
        }
    }

    #[test]
    fn a_strong_score_for_a_keyword_list_is_a_contradiction() {
        let why = contradiction(&scored(90.0, vec![Flaw::KeywordList])).expect("caught");
        assert!(why.contains("lists techniques"), "{why}");
        assert_eq!(contradiction(&scored(50.0, vec![Flaw::KeywordList])), None);
        assert_eq!(contradiction(&scored(90.0, vec![])), None);
    }
}
