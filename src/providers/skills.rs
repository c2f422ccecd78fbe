//! The skills the built-in interviewer and its rubric recognise in job descriptions, CVs and
//! answers.

/// Skills the built-in interviewer recognises in job descriptions, CVs and answers.
const SKILLS: &[&str] = &[
    "rust",
    "python",
    "java",
    "javascript",
    "typescript",
    "go",
    "c++",
    "c#",
    "kotlin",
    "swift",
    "php",
    "ruby",
    "sql",
    "postgresql",
    "mysql",
    "mongodb",
    "redis",
    "docker",
    "kubernetes",
    "aws",
    "azure",
    "gcp",
    "terraform",
    "linux",
    "git",
    "react",
    "vue",
    "angular",
    "node.js",
    "django",
    "spring",
    "graphql",
    "rest",
    "microservices",
    "ci/cd",
    "testing",
    "security",
    "machine learning",
    "data analysis",
    "excel",
    "tableau",
    "figma",
    "photoshop",
    "seo",
    "marketing",
    "sales",
    "negotiation",
    "customer service",
    "accounting",
    "bookkeeping",
    "project management",
    "agile",
    "scrum",
    "leadership",
    "mentoring",
    "teaching",
    "nursing",
    "first aid",
    "plumbing",
    "electrical",
    "carpentry",
    "welding",
    "painting",
    "driving",
    "forklift",
    "logistics",
    "inventory",
    "cooking",
    "cleaning",
    "hvac",
    "networking",
];

/// Finds known skills in `text`, as whole words, in lexicon order.
pub fn find_skills(text: &str) -> Vec<String> {
    let lower = text.to_lowercase();
    SKILLS
        .iter()
        .filter(|s| contains_word(&lower, s))
        .map(|s| (*s).to_owned())
        .collect()
}

fn contains_word(haystack: &str, word: &str) -> bool {
    let is_word = |c: char| c.is_alphanumeric() || c == '+' || c == '#';
    haystack.match_indices(word).any(|(i, _)| {
        let before = haystack[..i].chars().next_back();
        let after = haystack[i + word.len()..].chars().next();
        !before.is_some_and(is_word) && !after.is_some_and(is_word)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn skills_are_whole_words() {
        assert_eq!(
            find_skills("Rust and PostgreSQL, not trusty"),
            vec!["rust", "postgresql"]
        );
        assert!(find_skills("going").is_empty());
    }
}
