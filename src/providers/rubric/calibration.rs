//! The labelled set in its bands, and the adversarial set below them.

use super::labelled::{adversarial, cases};
use switchboard_actors::interview::evidence::{contradiction, STRONG, WEAK};

/// Ranks with ties sharing their mean rank.
fn ranks(xs: &[f64]) -> Vec<f64> {
    let mut idx: Vec<usize> = (0..xs.len()).collect();
    idx.sort_by(|a, b| xs[*a].total_cmp(&xs[*b]));
    let mut out = vec![0.0; xs.len()];
    let mut i = 0;
    while i < idx.len() {
        let mut j = i;
        while j + 1 < idx.len() && xs[idx[j + 1]] == xs[idx[i]] {
            j += 1;
        }
        for k in i..=j {
            out[idx[k]] = (i + j) as f64 / 2.0 + 1.0;
        }
        i = j + 1;
    }
    out
}

fn pearson(a: &[f64], b: &[f64]) -> f64 {
    let n = a.len() as f64;
    let (ma, mb) = (a.iter().sum::<f64>() / n, b.iter().sum::<f64>() / n);
    let cov: f64 = a.iter().zip(b).map(|(x, y)| (x - ma) * (y - mb)).sum();
    let va: f64 = a.iter().map(|x| (x - ma).powi(2)).sum();
    let vb: f64 = b.iter().map(|y| (y - mb).powi(2)).sum();
    cov / (va * vb).sqrt()
}

#[test]
fn the_labelled_set_is_scored_in_its_bands() {
    let cases = cases();
    assert!(cases.len() >= 30);
    let mut report = String::new();
    let mut wrong = Vec::new();
    for c in &cases {
        let s = c.score.composite_score;
        report.push_str(&format!(
            "{:>5.1} {} {:<22} {:?}\n",
            s,
            ["weak", "adequate", "strong"][c.label as usize],
            c.id,
            c.score.evidence.as_ref().map(|e| &e.found)
        ));
        if (c.label == 2 && s < STRONG) || (c.label == 0 && s > WEAK) {
            wrong.push(c.id.clone());
        }
        // The built-in scorer passes the check the model's replies are held to.
        assert_eq!(contradiction(&c.score), None, "{}", c.id);
    }
    let scores: Vec<f64> = cases.iter().map(|c| c.score.composite_score).collect();
    let labels: Vec<f64> = cases.iter().map(|c| f64::from(c.label)).collect();
    let rho = pearson(&ranks(&scores), &ranks(&labels));
    println!("{report}Spearman {rho:.3}");
    assert!(wrong.is_empty(), "out of band: {wrong:?}\n{report}");
    assert!(rho >= 0.8, "Spearman {rho:.3}\n{report}");
}

#[test]
fn a_strong_short_answer_beats_a_long_vague_one() {
    let cases = cases();
    let shortest_strong = cases
        .iter()
        .filter(|c| c.label == 2)
        .min_by_key(|c| c.answer.len())
        .expect("a strong answer");
    let longest_weak = cases
        .iter()
        .filter(|c| c.label == 0)
        .max_by_key(|c| c.answer.len())
        .expect("a weak answer");
    assert!(shortest_strong.answer.len() < longest_weak.answer.len());
    assert!(
        shortest_strong.score.composite_score > longest_weak.score.composite_score + 30.0,
        "{} vs {}",
        shortest_strong.score.composite_score,
        longest_weak.score.composite_score
    );
}

#[test]
fn scores_are_deterministic() {
    let a: Vec<_> = cases().into_iter().map(|c| c.score).collect();
    let b: Vec<_> = cases().into_iter().map(|c| c.score).collect();
    assert_eq!(a, b);
}

/// Issue 37: answers with nothing in them — keyword lists, empty templates, bare verbs,
/// numbers without a story, another trade's story, the question handed back, shuffled
/// words — score at most 50 each, and their feedback says why.
#[test]
fn the_adversarial_set_scores_at_most_fifty() {
    let cases = adversarial();
    assert!(cases.len() >= 30);
    let mut report = String::new();
    let mut wrong = Vec::new();
    for c in &cases {
        let s = &c.score;
        report.push_str(&format!(
            "{:>5.1} {:<40} {}\n",
            s.composite_score, c.id, s.summary
        ));
        if s.composite_score > 50.0 {
            wrong.push(c.id.clone());
        }
        let want = match c.kind.as_str() {
            "off_topic" => Some("off-topic"),
            "keyword_list" => Some("lists techniques without saying what you did with them"),
            "numbers_only" => Some("a result without the work that produced it"),
            "question_echo" => Some("hands the question back"),
            _ => None,
        };
        if let Some(want) = want {
            if !s.summary.contains(want) {
                wrong.push(format!("{} (no \"{want}\")", c.id));
            }
        }
        assert_eq!(contradiction(s), None, "{}", c.id);
    }
    let max = cases
        .iter()
        .map(|c| c.score.composite_score)
        .fold(0.0, f64::max);
    println!("{report}max {max:.1}");
    assert!(wrong.is_empty(), "{wrong:?}\n{report}");
}

/// No labelled answer is taken for an imitation: the flaws are the adversarial set's alone.
#[test]
fn no_labelled_answer_is_flagged() {
    let flagged: Vec<String> = cases()
        .iter()
        .filter(|c| c.label > 0)
        .filter_map(|c| {
            let flaws = &c.score.evidence.as_ref()?.flaws;
            (!flaws.is_empty()).then(|| format!("{}: {flaws:?}", c.id))
        })
        .collect();
    assert!(flagged.is_empty(), "{flagged:?}");
}
