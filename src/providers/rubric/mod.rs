//! The built-in interviewer's rubric: an answer is scored from the evidence it contains, not
//! from its length (the rubric is written out in docs/decisions.md, "Interview rubric
//! (issue 20)" and "Evidence that connects (issue 37)"). Every score, feedback line and
//! finding comes from one [`Evidence`]; evidence counts only where it sits in the answer's
//! story (`structure`) and is about the job (`relevance`).

mod relevance;
mod structure;
mod vocab;
mod words;

use super::skills::find_skills;
use switchboard_actors::interview::evidence::{verdict, Element, Evidence, Flaw};
use switchboard_actors::interview::{AnswerScore, JobProfile, Question};
use vocab::*;
use words::words_of;

fn has(text: &str, marker: &str) -> bool {
    text.contains(marker)
}

fn count(text: &str, markers: &[&str]) -> usize {
    markers.iter().filter(|m| has(text, m)).count()
}

/// Whole-word occurrence, so "led" does not match "called".
fn has_word(text: &str, word: &str) -> bool {
    let is_word = |c: char| c.is_alphanumeric() || c == '-';
    text.match_indices(word).any(|(i, _)| {
        !text[..i].chars().next_back().is_some_and(is_word)
            && !text[i + word.len()..].chars().next().is_some_and(is_word)
    })
}

/// The technique vocabulary that fits the job: its fields' terms and the generic ones (all
/// fields when the job names none).
fn techniques_for(job_text: &str) -> Vec<&'static str> {
    let fields: Vec<_> = FIELDS
        .iter()
        .filter(|f| f.keys.iter().any(|k| has(job_text, k)))
        .collect();
    let chosen: Vec<_> = if fields.is_empty() {
        FIELDS.iter().collect()
    } else {
        fields
    };
    let mut out: Vec<&str> = chosen
        .iter()
        .flat_map(|f| f.techniques.iter().copied())
        .collect();
    out.extend_from_slice(GENERIC_TECHNIQUES);
    out.sort_unstable();
    out.dedup();
    out
}

fn level(job: &JobProfile) -> &'static str {
    let l = job.experience_level.as_deref().unwrap_or("").to_lowercase();
    if ["senior", "lead", "principal", "expert", "staff"]
        .iter()
        .any(|k| l.contains(k))
    {
        "senior"
    } else if [
        "junior",
        "entry",
        "intern",
        "graduate",
        "trainee",
        "apprentice",
    ]
    .iter()
    .any(|k| l.contains(k))
    {
        "junior"
    } else {
        "mid"
    }
}

/// How strongly (0–1) an answer shows each element, plus its vagueness.
#[derive(Debug, Default, Clone, Copy)]
struct Grades {
    situation: f64,
    actions: f64,
    techniques: f64,
    result: f64,
    trade_offs: f64,
    collaboration: f64,
    /// 1 for a plain, concrete answer, down to 0 for filler.
    clarity: f64,
    vague: usize,
}

impl Grades {
    fn of(self, e: Element) -> f64 {
        match e {
            Element::Situation => self.situation,
            Element::Actions => self.actions,
            Element::Techniques => self.techniques,
            Element::Result => self.result,
            Element::TradeOffs => self.trade_offs,
            Element::Collaboration => self.collaboration,
        }
    }
}

struct Read {
    grades: Grades,
    skills: Vec<String>,
    quote: Option<String>,
    evasive: bool,
    blame: bool,
    /// What only imitates evidence; each caps the score (see `cap`).
    flaws: Vec<Flaw>,
}

fn read(job: &JobProfile, question: &Question, answer: &str) -> Read {
    let text = answer.to_lowercase();
    let word_count = words_of(&text).count();
    let job_text = format!(
        " {} {} {} ",
        job.job_title,
        job.job_category.as_deref().unwrap_or(""),
        job.job_description.as_deref().unwrap_or("")
    )
    .to_lowercase();
    let senior = level(job) == "senior";
    let junior = level(job) == "junior";
    let shape = structure::read(&question.content, answer);
    // Evidence is read from the story only: list items and a result before any work do not
    // count, and without an action nothing is connected to anything.
    let story = &shape.story;
    let worked = shape.actions > 0;

    let actions = (shape.actions as f64 / 3.0).min(1.0) * if shape.own_actions { 1.0 } else { 0.7 };

    let required = find_skills(&format!(
        "{} {}",
        job_text,
        job.cv_text.as_deref().unwrap_or("")
    ));
    let skills = find_skills(answer);
    let used_skills = find_skills(story);
    let relevant_skills = used_skills.iter().filter(|s| required.contains(s)).count();
    let terms = techniques_for(&job_text)
        .into_iter()
        .filter(|t| has(story, t))
        .count();
    // Subject words of the job description the story uses (at most two count).
    let mut overlap: Vec<&str> = words_of(&job_text)
        .filter(|w| w.len() >= 6 && !STOPWORDS.contains(w))
        .filter(|w| has_word(story, w))
        .collect();
    overlap.sort_unstable();
    overlap.dedup();
    let technique_count = if worked {
        relevant_skills + terms + overlap.len().min(2)
    } else {
        0
    };
    let mut techniques = (technique_count as f64 / 3.0).min(1.0);

    let after = &shape.after_work;
    let outcome = worked && count(after, OUTCOME) > 0;
    let measured =
        worked && (count(after, MEASURE) > 0 || after.chars().any(|c| c.is_ascii_digit()));
    let result = match (outcome, measured) {
        (true, true) => 1.0,
        (true, false) => 0.6,
        (false, true) => 0.3,
        _ => 0.0,
    };

    let mut reasoning = if worked { count(story, TRADE_OFFS) } else { 0 };
    if junior && worked {
        reasoning += count(story, REFLECTION);
    }
    // A senior candidate is expected to weigh more than one consideration.
    let trade_offs = (reasoning as f64 / if senior { 3.0 } else { 2.0 }).min(1.0);

    // Others count where the story has them take part: in a sentence with an action.
    let involved = shape
        .action_sentences
        .iter()
        .map(|s| count(&format!(" {s} "), OTHERS))
        .sum::<usize>();
    let collaboration = (involved as f64 / 2.0).min(1.0);

    let situation = shape.situation;
    let vague = count(&format!(" {text} "), VAGUE);
    // Vagueness weighs by how much of the answer it is: a few fillers in a concrete answer
    // matter less than in an empty one.
    let concrete = shape.actions + technique_count + usize::from(outcome) + usize::from(measured);
    let clarity = if word_count < 5 || shape.incoherent {
        0.0
    } else {
        (1.0 - vague as f64 / (vague + concrete).max(1) as f64).clamp(0.0, 1.0)
    };

    let mut flaws = Vec::new();
    if shape.incoherent {
        flaws.push(Flaw::Incoherent);
    }
    if shape.echoes_question {
        flaws.push(Flaw::EchoesQuestion);
    }
    // Words that are not sentences, or the question handed back, show nothing at all, and
    // that is all there is to say about them.
    let empty = shape.incoherent || shape.echoes_question;
    let fit = relevance::relevance(&job_text, &required, &text);
    let asks_about_the_work = matches!(question.category.as_str(), "technical" | "problem_solving");
    if fit.off_topic(
        shape.actions >= 2 || (worked && situation > 0.0),
        asks_about_the_work,
    ) {
        flaws.push(Flaw::OffTopic);
        // Another trade's techniques do not fit this job.
        techniques = 0.0;
    }
    if shape.template_labels >= 2 && (situation < 1.0 || !worked) {
        flaws.push(Flaw::EmptyTemplate);
    }
    if shape.listed_terms >= 3 && shape.listed_terms > 2 * shape.actions {
        flaws.push(Flaw::KeywordList);
    }
    if shape.bare_verbs >= 2 && shape.bare_verbs > shape.actions {
        flaws.push(Flaw::BareVerbs);
    }
    if !worked && shape.claims_result {
        flaws.push(Flaw::ResultWithoutWork);
    }

    if empty {
        flaws.truncate(1);
    }

    let evasive = count(&text, EVASIVE) > 0 && word_count < 25;
    let blame = count(&text, BLAME) > 0;
    let grades = if empty {
        Grades {
            clarity,
            vague,
            ..Default::default()
        }
    } else {
        Grades {
            situation,
            actions,
            techniques,
            result,
            trade_offs,
            collaboration,
            clarity,
            vague,
        }
    };
    Read {
        grades,
        skills,
        quote: quote(answer),
        evasive,
        blame,
        flaws,
    }
}

/// A short phrase of the answer (at most six words, from its first action verb) that a
/// follow-up question may quote.
fn quote(answer: &str) -> Option<String> {
    let lower = answer.to_lowercase();
    let start = ACTION_VERBS
        .iter()
        .filter_map(|v| {
            lower.match_indices(v).find(|(i, _)| {
                !lower[..*i]
                    .chars()
                    .next_back()
                    .is_some_and(char::is_alphanumeric)
                    && !lower[i + v.len()..]
                        .chars()
                        .next()
                        .is_some_and(char::is_alphanumeric)
            })
        })
        .map(|(i, _)| i)
        .min()?;
    let clause = answer[start..]
        .split([',', '.', ';', '!', '?', ':', '(', '"'])
        .next()?;
    let words: Vec<&str> = clause.split_whitespace().collect();
    match words.len() {
        0..=1 => None,
        2..=6 => Some(words.join(" ")),
        // Cut short rather than end mid-phrase without saying so.
        _ => Some(format!("{}…", words[..5].join(" "))),
    }
}

/// Weighted mean of the applicable grades, 10–100.
fn facet(g: Grades, category: &str, weights: &[(Option<Element>, f64)]) -> f64 {
    let (mut sum, mut total) = (0.0, 0.0);
    for (e, w) in weights {
        let grade = match e {
            Some(e) if !e.applies(category) => continue,
            Some(e) => g.of(*e),
            None => g.clarity,
        };
        sum += w * grade;
        total += w;
    }
    10.0 + 90.0 * sum / total
}

pub fn score(job: &JobProfile, question: &Question, answer: &str) -> AnswerScore {
    let r = read(job, question, answer);
    let g = r.grades;
    let cat = question.category.as_str();
    let senior = level(job) == "senior";
    use Element::*;
    let technical = facet(
        g,
        cat,
        &[
            (Some(Techniques), 0.35),
            (Some(Actions), 0.25),
            (Some(Result), 0.25),
            (Some(Situation), 0.15),
        ],
    );
    let trade_weight = if senior { 0.35 } else { 0.25 };
    let problem_solving = facet(
        g,
        cat,
        &[
            (Some(Actions), 0.25),
            (Some(TradeOffs), trade_weight),
            (Some(Result), 0.25),
            (Some(Situation), 0.15),
            (Some(Techniques), 0.10),
        ],
    );
    let communication = facet(
        g,
        cat,
        &[
            (Some(Situation), 0.25),
            (Some(Result), 0.25),
            (Some(Actions), 0.2),
            (None, 0.3),
            (Some(Collaboration), 0.2),
        ],
    );
    let cultural_fit = facet(
        g,
        cat,
        &[
            (Some(Collaboration), 0.35),
            (Some(Actions), 0.25),
            (Some(Result), 0.15),
            (Some(Situation), 0.15),
            (None, 0.1),
        ],
    );
    // Filler costs every category a little on top of the clarity it lowers.
    let vague_cost = 3.0 * g.vague.min(4) as f64 * (1.0 - g.clarity);
    let cap = if r.evasive { 20.0 } else { cap(&r.flaws) };
    let round = |x: f64| ((x - vague_cost).clamp(0.0, cap) * 10.0).round() / 10.0;
    let mut cultural_fit = round(cultural_fit);
    if r.blame {
        cultural_fit = (cultural_fit - 30.0).max(0.0);
    }
    let (technical, problem_solving, communication) = (
        round(technical),
        round(problem_solving),
        round(communication),
    );
    let own = match cat {
        "technical" => technical,
        "communication" => communication,
        "problem_solving" => problem_solving,
        _ => cultural_fit,
    };
    let composite =
        ((technical + communication + problem_solving + cultural_fit + own) / 5.0 * 10.0).round()
            / 10.0;

    let (found, missing): (Vec<Element>, Vec<Element>) = Element::ALL
        .into_iter()
        .filter(|e| e.applies(cat))
        .partition(|e| g.of(*e) >= 0.5 && !r.evasive);
    let evidence = Evidence {
        found,
        missing,
        quote: r.quote,
        flaws: r.flaws,
    };
    let mut red_flags = Vec::new();
    if r.evasive {
        red_flags.push("Could not answer one of the questions".to_owned());
    }
    if r.blame {
        red_flags.push("Blamed or disparaged others".to_owned());
    }
    AnswerScore {
        technical,
        communication,
        problem_solving,
        cultural_fit,
        composite_score: composite,
        summary: feedback(composite, &evidence),
        skills: r.skills,
        strengths: evidence.strengths(),
        weaknesses: evidence.weaknesses(),
        red_flags,
        highlight: highlight(answer),
        evidence: Some(evidence),
    }
}

/// The per-answer feedback, from the verdict and the same findings as everything else.
pub fn feedback(composite: f64, ev: &Evidence) -> String {
    let list = Element::list;
    let mut out = format!("{}.", verdict(composite));
    if !ev.found.is_empty() {
        out.push_str(&format!(" It shows {}.", list(&ev.found)));
    }
    // What only imitated evidence comes first among the gaps: it says why an element that
    // seems present was not counted.
    for f in &ev.flaws {
        out.push_str(&format!(" It {}.", f.feedback()));
    }
    if !ev.missing.is_empty() {
        out.push_str(&format!(" It leaves out {}.", list(&ev.missing)));
    }
    out
}

/// The highest score an answer with these flaws can have: none below strong; an answer that
/// only imitates evidence is adequate at most, and one that is no answer at all is weak.
pub fn cap(flaws: &[Flaw]) -> f64 {
    flaws
        .iter()
        .map(|f| match f {
            Flaw::Incoherent | Flaw::EchoesQuestion => 20.0,
            Flaw::OffTopic
            | Flaw::KeywordList
            | Flaw::EmptyTemplate
            | Flaw::BareVerbs
            | Flaw::ResultWithoutWork => 50.0,
        })
        .fold(100.0, f64::min)
}

/// The flaws the rubric finds in an answer, for holding another scorer to them.
pub fn flaws(job: &JobProfile, question: &Question, answer: &str) -> Vec<Flaw> {
    read(job, question, answer).flaws
}

/// The answer's sentence with a number or an outcome, if any (quote-worthy).
fn highlight(answer: &str) -> Option<String> {
    answer
        .split(['.', '!', '?'])
        .map(str::trim)
        .filter(|s| s.split_whitespace().count() >= 5)
        .find(|s| {
            let l = s.to_lowercase();
            l.chars().any(|c| c.is_ascii_digit()) || count(&l, OUTCOME) > 0
        })
        .map(|s| s.chars().take(200).collect())
}

#[cfg(test)]
mod calibration;
#[cfg(test)]
pub(crate) mod labelled;
#[cfg(test)]
mod one_voice;
