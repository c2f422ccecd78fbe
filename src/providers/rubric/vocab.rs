//! The rubric's word lists: what marks each kind of evidence, and each field's vocabulary.

/// Past and plain forms of verbs that say what someone did.
#[rustfmt::skip]
pub const ACTION_VERBS: &[&str] = &[
    "found", "traced", "profiled", "measured", "replaced", "rewrote", "wrote", "built",
    "designed", "migrated", "moved", "added", "introduced", "set up", "automated", "deployed",
    "shipped", "led", "ran", "load-tested", "tested", "benchmarked", "picked", "chose", "decided",
    "split", "sharded", "cached", "indexed", "refactored", "reviewed", "fixed", "documented",
    "trained", "coached", "mentored", "organised", "organized", "scheduled", "called", "emailed",
    "met", "negotiated", "presented", "explained", "proposed", "prototyped", "interviewed",
    "analysed", "analyzed", "reconciled", "audited", "created", "implemented", "configured",
    "monitored", "rolled", "launched", "drafted", "prepared", "checked", "inspected", "rewired",
    "installed", "repaired", "diagnosed", "triaged", "escalated", "assessed", "administered",
    "redesigned", "restructured", "removed", "paired", "asked", "listened", "agreed", "persuaded",
    "hired", "planned", "prioritised", "prioritized", "tracked", "compared", "validated",
    "verified", "isolated", "reproduced", "wrapped", "sent", "recorded", "rearranged", "walked",
    "simplified", "switched", "kept", "flagged", "raised", "ordered", "cleaned", "labelled",
    "labeled", "photographed", "priced", "followed", "shadowed", "practised", "practiced", "read",
    "built", "turned", "gave", "showed", "broke", "divided", "cooked", "rotated", "counted",
    "loaded", "routed", "mapped", "sketched", "rebuilt", "investigated", "rehearsed", "modelled",
    "modeled", "surveyed", "debugged", "dual-wrote", "dropped", "capped", "batched", "queued",
    "retried", "grouped", "handed", "booked", "told", "talked", "add", "use", "run", "fix",
    // Plain forms, for "how would you" questions.
    "check", "call", "ask", "measure", "write", "build", "test", "compare", "review", "escalate",
    "isolate", "reproduce", "document", "prioritise", "prioritize", "set", "agree", "explain",
];

/// Where the story is set: context and the task at hand.
#[rustfmt::skip]
pub const SITUATION: &[&str] = &[
    "at my last", "in my last", "in my previous", "at my previous", "at my current",
    "in my current", "at a previous", "last year", "last month", "last quarter", "last winter",
    "last summer", "when i was", "when we", "when our", "while working", "on a project",
    "in production", "during", "i was asked", "i was responsible", "the goal", "we needed",
    "needed to", "had to", "was failing", "the problem was", "the issue was", "we had", "we were",
    "there was", "a client", "a customer", "one of our", "our ", "on my first", "in my first",
    "at the time", "years ago", "once", "in my department", "in my team", "my department",
    "i led a", "i ran a", "i owned", "my task", "when i became", "my placement", "my internship",
    "one day", "one night", "night shift", "on a busy",
];

/// Outcome words: what changed.
#[rustfmt::skip]
pub const OUTCOME: &[&str] = &[
    "reduced", "increased", "improved", "fell", "dropped", "rose", "doubled", "halved", "tripled",
    "cut", "saved", "went from", "grew", "shrank", "no longer", "since then", "as a result",
    "which meant", "resolved", "stopped", "prevented", "won", "passed", "zero-downtime",
    "zero downtime", "without downtime", "without losing", "lost no", "on time", "under budget",
    "ended up", "down to", "up to", "faster", "fewer", "came back", "renewed", "signed",
    "closed the", "recovered", "retained", "never", "has run", "still runs", "now ", "earlier",
    "was under", "back on", "up from", "down from", "went up", "went down", "adopted",
    "nobody noticed", "accepted",
];

/// A result put in numbers or as a before and after.
#[rustfmt::skip]
pub const MEASURE: &[&str] = &[
    "%", "percent", "doubled", "halved", "tripled", "twice", "half ", "zero", "from ", "before",
    "after", " ms", "hours", "minutes", "days", "weeks", "£", "$", "€", "x ",
];

/// Reasoning about options.
#[rustfmt::skip]
pub const TRADE_OFFS: &[&str] = &[
    "trade-off", "tradeoff", "trade off", "instead of", "rather than", "both ", "option",
    "alternative", "compared", "weighed", "pros and cons", "failure mode", "simpler", "downside",
    "cost", "risk", "because", "so that", "at the expense", "on the other hand", "versus", " vs ",
    "chose", "picked", "decided", "went with", "the catch", "worth it",
];

/// Reflection that counts as reasoning for a junior candidate.
#[rustfmt::skip]
pub const REFLECTION: &[&str] = &[
    "i learned", "i learnt", "next time", "i now", "taught me", "i realised", "i realized",
];

/// How others took part.
#[rustfmt::skip]
pub const OTHERS: &[&str] = &[
    "team", "colleague", "manager", "customer", "client", "stakeholder", "together", "paired",
    "mentored", "coached", "asked", "agreed", "explained", "listened", "we ", "product owner",
    "support", "nurse", "doctor", "parent", "patient", "student", "lead", "peer", "engineer",
    "designer", "chef", "supervisor", "driver", "partner", "everyone", "each other", "him", "her",
    "them", "they",
];

/// Filler that says nothing about what happened.
#[rustfmt::skip]
pub const VAGUE: &[&str] = &[
    "i always", "always try", "i believe", "i think", "i feel", "very important", "best practice",
    "hard work", "hard-working", "hardworking", "passionate", "team player", "things", "stuff",
    "etc", "various", "a lot of", "many different", "in general", "generally", "usually",
    "my best", "whatever it takes", "synergy", "detail-oriented", "self-starter", "fast learner",
    "quick learner", "lots of", "all kinds of", "of course", "just ", "basically", "somehow",
];

#[rustfmt::skip]
pub const EVASIVE: &[&str] = &[
    "i don't know", "i dont know", "no idea", "not sure", "whatever", "pass",
];
#[rustfmt::skip]
pub const BLAME: &[&str] = &[
    "their fault", "his fault", "her fault", "stupid", "idiot", "hate my", "useless",
];

/// One field of work: the words that put a job in it, the techniques of its trade, and the
/// subjects its stories are about (what tells an off-topic answer apart).
pub struct Field {
    pub keys: &'static [&'static str],
    pub techniques: &'static [&'static str],
    pub subjects: &'static [&'static str],
}

/// Vocabularies by field; a field's techniques count when the job is in that field.
#[rustfmt::skip]
pub const FIELDS: &[Field] = &[
    Field {
        keys: &[
            "engineer", "developer", "backend", "frontend", "devops", "software", "sre",
            "programmer", "platform",
        ],
        techniques: &[
            "mutex", "lock contention", "actor", "replication", "dual write", "feature flag",
            "flag", "checksum", "load test", "load-test", "benchmark", "profil", "flame graph",
            "index", "cache", "queue", "retry", "retries", "idempot", "rollback", "canary",
            "migration", "schema", "monitoring", "alert", "dashboard", "metric", "tracing",
            "latency", "throughput", "code review", "unit test", "integration test", "refactor",
            "api", "endpoint", "connection pool", "circuit breaker", "backoff", "timeout",
            "deadlock", "race", "async", "thread", "shard", "partition", "failover", "blue-green",
            "observability", "p99", "p95", "query plan", "explain analyze", "transaction",
            "consistency", "design doc", "feature toggle", "contract test", "type", "linter",
            "memory", "allocation", "batch", "rate limit", "logical",
        ],
        subjects: &[
            "server", "database", "deploy", "release", "production", "bug", "outage", "incident",
            "request", "repository", "pull request", "cluster", "container", "webhook", "payment",
            "checkout", "browser", "bundle", "component", "page", "code", "staging", "rollout",
            "users",
        ],
    },
    Field {
        keys: &["data", "analyst", "scientist", "analytics", "bi ",],
        techniques: &[
            "query", "dashboard", "cohort", "regression", "a/b test", "experiment",
            "significance", "pipeline", "etl", "dbt", "pivot table", "model", "feature",
            "dataset", "sampling", "forecast", "segment", "baseline", "outlier", "join",
            "window function",
        ],
        subjects: &[
            "data", "report", "analysis", "table", "chart", "notebook", "column",
        ],
    },
    Field {
        keys: &[
            "sales", "account executive", "business development", "marketing", "account manager",
        ],
        techniques: &[
            "crm", "pipeline", "discovery call", "cold call", "objection", "upsell", "quota",
            "lead", "conversion", "funnel", "campaign", "segment", "a/b test", "newsletter",
            "landing page", "click-through", "retention", "churn", "renewal", "demo", "proposal",
            "pricing", "follow-up", "referral", "persona",
        ],
        subjects: &[
            "prospect", "deal", "contract", "price", "discount", "quota", "renewal", "sales",
            "buyer", "procurement", "logo",
        ],
    },
    Field {
        keys: &["accountant", "finance", "bookkeep", "payroll", "auditor", "controller",],
        techniques: &[
            "reconcil", "ledger", "month-end", "accrual", "variance", "invoice", "payroll",
            "audit", "vat", "budget", "forecast", "cash flow", "journal", "accounts payable",
            "accounts receivable", "spreadsheet", "pivot table", "xero", "sage", "quickbooks",
            "close", "sign-off", "control",
        ],
        subjects: &[
            "invoice", "ledger", "bank", "statement", "tax", "vat", "payroll", "accrue",
            "accrual", "period end", "auditor", "supplier", "balance sheet", "expense",
        ],
    },
    Field {
        keys: &["nurse", "nursing", "care", "health", "clinical", "medical", "midwife",],
        techniques: &[
            "triage", "handover", "care plan", "vital signs", "observations", "medication",
            "drug chart", "early warning", "news2", "escalat", "sepsis", "fluid balance", "wound",
            "infection control", "sbar", "pressure area", "falls risk", "ward round", "discharge",
        ],
        subjects: &[
            "patient", "ward", "doctor", "nurse", "medication", "drug", "observations",
            "registrar", "antibiotic", "fluids", "sepsis", "post-operative", "bed", "clinic",
            "healthcare",
        ],
    },
    Field {
        keys: &["teacher", "tutor", "teaching", "school", "lecturer",],
        techniques: &[
            "lesson plan", "differentiat", "formative", "assessment", "rubric", "scaffold",
            "seating plan", "behaviour policy", "phonics", "parents' evening", "exit ticket",
            "small group", "intervention", "reading age", "marking", "worked example",
            "retrieval practice", "mock", "starter", "misconception", "scheme of work", "trial",
        ],
        subjects: &[
            "student", "pupil", "class", "lesson", "teacher", "curriculum", "exam", "mock",
            "homework", "year 10", "year 11", "maths", "algebra", "school",
        ],
    },
    Field {
        keys: &[
            "electrician", "plumber", "technician", "mechanic", "carpenter", "welder",
            "maintenance",
        ],
        techniques: &[
            "wiring", "circuit", "consumer unit", "rcd", "load calculation", "inspection",
            "permit", "isolat", "multimeter", "continuity", "insulation resistance", "pipe",
            "valve", "pressure test", "solder", "torque", "blueprint", "risk assessment",
            "lockout", "tagout", "regulation", "fault finding", "cable",
        ],
        subjects: &[
            "boiler", "pipe", "valve", "radiator", "coolant", "engine", "vehicle", "wiring",
            "fuse", "socket", "brake", "leak", "heating", "gearbox", "tyre", "timber", "weld",
        ],
    },
    Field {
        keys: &["warehouse", "logistics", "driver", "supply chain", "dispatcher", "picker",],
        techniques: &[
            "pick rate", "route", "wms", "stock count", "fifo", "cycle count", "slotting",
            "dispatch", "manifest", "pallet", "forklift", "cross-dock", "lead time",
            "reorder point", "carrier", "tracking", "scanner",
        ],
        subjects: &[
            "warehouse", "picker", "pallet", "aisle", "dispatch", "shipment", "delivery", "stock",
            "forklift", "packing", "cut-off", "depot", "lorry", "loading bay",
        ],
    },
    Field {
        keys: &["chef", "cook", "kitchen", "restaurant", "hotel", "barista", "hospitality",],
        techniques: &[
            "haccp", "mise en place", "prep list", "allergen", "temperature log", "covers",
            "rota", "ticket time", "station", "stock rotation", "food cost", "menu", "par level",
            "labelling", "labeled", "labelled",
        ],
        subjects: &[
            "kitchen", "chef", "dish", "grill", "oven", "bakery", "bread", "dough", "flour",
            "recipe", "allergen", "garnish", "sauce", "pastry", "restaurant", "guest", "prep",
        ],
    },
    Field {
        keys: &["designer", "ux", "ui ", "product design",],
        techniques: &[
            "wireframe", "prototype", "usability test", "user interview", "persona",
            "design system", "figma", "accessibility", "contrast", "user research", "journey map",
            "a/b test", "heuristic",
        ],
        subjects: &[
            "wireframe", "mockup", "screen", "layout", "figma", "prototype", "user research",
        ],
    },
];

/// Techniques that fit any job.
#[rustfmt::skip]
pub const GENERIC_TECHNIQUES: &[&str] = &[
    "root cause", "five whys", "post-mortem", "postmortem", "retrospective", "runbook",
    "checklist", "kpi", "okr", "sla", "roadmap", "risk register", "raci", "sprint", "backlog",
    "stand-up", "standup", "one-to-one", "1:1", "written plan", "pilot",
];

/// Common words that say nothing about a job description's subject.
#[rustfmt::skip]
pub const STOPWORDS: &[&str] = &[
    "about", "after", "again", "their", "there", "these", "those", "which", "while", "would",
    "should", "could", "where", "other", "being", "using", "build", "with", "within", "without",
    "across", "through", "people", "work", "working", "looking", "experience", "years", "strong",
    "skills", "ability", "including", "support", "role", "team", "teams", "great", "services",
];

/// Words that carry grammar, not content: an object made only of these names nothing.
#[rustfmt::skip]
pub const FUNCTION: &[&str] = &[
    "a", "an", "the", "this", "that", "these", "those", "my", "our", "your", "his", "her",
    "their", "its", "i", "we", "you", "he", "she", "they", "me", "us", "them", "him", "it",
    "and", "or", "but", "so", "then", "also", "too", "very", "really", "just", "of", "in", "on",
    "at", "by", "for", "from", "to", "into", "with", "without", "about", "as", "than", "up",
    "out", "over", "under", "off", "down", "what", "which", "who", "whom", "how", "why", "when",
    "where", "while", "was", "were", "is", "are", "be", "been", "being", "am", "had", "has",
    "have", "do", "did", "does", "done", "will", "would", "could", "should", "can", "may",
    "might", "must", "not", "no", "all", "some", "any", "each", "every", "both", "much", "more",
    "most", "lot", "lots", "well", "there", "here", "now", "needed", "got", "get", "made", "make",
    "took", "take", "went", "go", "put", "did", "because", "if", "after", "before", "again",
];

/// Placeholder nouns and empty praise: a template's words, not a story's.
#[rustfmt::skip]
pub const GENERIC: &[&str] = &[
    "problem", "problems", "issue", "issues", "solution", "solutions", "task", "tasks", "thing",
    "things", "stuff", "situation", "result", "results", "action", "actions", "change",
    "changes", "improvement", "improvements", "approach", "process", "system", "service",
    "application", "app", "project", "work", "job", "company", "team", "people", "everyone",
    "goal", "goals", "challenge", "way", "fix", "plan", "step", "steps", "cause", "compromise",
    "agreement", "outcome", "decision", "option", "options", "sides", "side", "feedback",
    "manager", "deal", "slow", "fast", "faster", "better", "good", "bad", "happy", "pleased",
    "satisfied", "big", "difficult", "hard", "important", "great", "successful", "low", "high",
    "quickly", "clearly", "effectively", "successfully", "needed", "place", "everything",
    "performance", "quality", "best", "new", "colleague", "someone", "person", "disagreement",
    "conflict", "risk",
];

/// Words that set out a problem: what the story is about.
#[rustfmt::skip]
pub const PROBLEM: &[&str] = &[
    "timed out", "slow", "failing", "failed", "broke", "outage", "error", "behind", "at risk",
    "out by", "missing", "below", "too ", "kept ", "angry", "complain", "disagreed",
    "pushed back", "wanted", "could not", "couldn't", "had to", "needed to", "was losing",
    "losing", "waste", "throwing away", " late ", " thin ", "skipping", "rising", "stuck",
];

/// Labels of an answer template ("Situation: …"), with their one-letter forms.
#[rustfmt::skip]
pub const TEMPLATE_LABELS: &[&str] = &[
    "situation", "task", "action", "actions", "result", "results", "s", "t", "a", "r",
];

/// Verbs besides the action verbs, so a clause with one is not taken for a list item.
#[rustfmt::skip]
pub const OTHER_VERBS: &[&str] = &[
    "was", "were", "is", "are", "had", "has", "have", "did", "do", "does", "got", "went",
    "took", "made", "became", "came", "could", "would", "will", "needed", "wanted",
    "fell", "rose", "reduced", "increased", "improved", "cut", "saved", "grew", "halved",
    "doubled", "lowered", "exceeded", "worked", "helped", "learned", "learnt",
];
