//! Which due jobs one claim takes and how they group into runs: a plain topic's job is a run
//! of its own; a batch topic's jobs share runs of up to its batch size; never more runs than
//! the worker has room for, and no more of one batch topic than it allows. Oldest first, so a
//! deep queue of one topic does not starve the jobs due before it.

use std::collections::HashMap;

/// Most due rows one claim reads, whatever the room and batch sizes.
const READ_CAP: usize = 1000;

pub(super) struct Plan<'a> {
    /// Runs the worker can start now.
    pub room: usize,
    /// Every topic this node handles, with its batch size.
    pub batch: &'a HashMap<&'static str, usize>,
    /// Runs each batch topic may start now (a topic not named here is bounded by `room`).
    pub runs_left: HashMap<&'static str, usize>,
}

impl Plan<'_> {
    /// How many due rows to read: enough to fill every free slot with a full batch, bounded.
    pub fn read_limit(&self) -> u64 {
        let widest = self.batch.values().copied().max().unwrap_or(1);
        self.room.saturating_mul(widest).min(READ_CAP) as u64
    }

    /// Groups the due rows (given by topic, oldest first) into runs of indices into them.
    /// Rows left out stay queued.
    pub fn runs(&self, topics: &[&str]) -> Vec<Vec<usize>> {
        let mut runs: Vec<Vec<usize>> = Vec::new();
        // The run each batch topic is still filling.
        let mut filling: HashMap<&str, usize> = HashMap::new();
        let mut runs_left = self.runs_left.clone();
        for (i, topic) in topics.iter().enumerate() {
            let size = self.batch.get(topic).copied().unwrap_or(1).max(1);
            match filling.get(topic) {
                Some(&r) if runs[r].len() < size => runs[r].push(i),
                _ if runs.len() < self.room => {
                    if let Some(left) = runs_left.get_mut(topic) {
                        if *left == 0 {
                            continue;
                        }
                        *left -= 1;
                    }
                    filling.insert(topic, runs.len());
                    runs.push(vec![i]);
                }
                _ => {}
            }
        }
        runs
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sizes() -> HashMap<&'static str, usize> {
        HashMap::from([("one", 1), ("many", 3)])
    }

    /// A plan with `room` and "many" limited to `many_left` runs (None: only by room).
    fn plan<'a>(
        room: usize,
        batch: &'a HashMap<&'static str, usize>,
        many_left: Option<usize>,
    ) -> Plan<'a> {
        Plan {
            room,
            batch,
            runs_left: many_left
                .map(|n| HashMap::from([("many", n)]))
                .unwrap_or_default(),
        }
    }

    #[test]
    fn plain_jobs_run_alone_and_batch_jobs_share_runs_up_to_their_size() {
        let batch = sizes();
        let three = plan(3, &batch, None);
        let topics = ["many", "one", "many", "many", "many", "one", "many"];
        // many×3, one, many×2 (the second batch) fill the three slots; the last plain job waits.
        assert_eq!(
            three.runs(&topics),
            vec![vec![0, 2, 3], vec![1], vec![4, 6]]
        );
    }

    #[test]
    fn a_batch_topic_starts_no_more_runs_than_it_has_left() {
        let batch = sizes();
        let one_left = plan(5, &batch, Some(1));
        let topics = ["many", "many", "many", "many", "one", "many"];
        // One batch of three; the other "many" jobs wait, the plain job still runs.
        assert_eq!(one_left.runs(&topics), vec![vec![0, 1, 2], vec![4]]);
        let spent = plan(5, &batch, Some(0));
        assert_eq!(spent.runs(&topics), vec![vec![4]]);
    }

    #[test]
    fn no_room_takes_nothing_and_the_read_limit_fills_every_slot() {
        let batch = sizes();
        let none = plan(0, &batch, None);
        assert!(none.runs(&["one", "many"]).is_empty());
        assert_eq!(none.read_limit(), 0);
        let four = plan(4, &batch, None);
        assert_eq!(four.read_limit(), 12);
        let huge = plan(10_000, &batch, None);
        assert_eq!(huge.read_limit(), READ_CAP as u64);
    }

    #[test]
    fn a_topic_without_a_known_size_runs_alone() {
        let batch = sizes();
        let five = plan(5, &batch, None);
        assert_eq!(five.runs(&["gone", "gone"]), vec![vec![0], vec![1]]);
    }
}
