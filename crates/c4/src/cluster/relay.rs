//! Which workers a batch of bounds goes to next: the workers pass their bounds to each other
//! along a binomial tree rooted at the worker that proved them, never through the manager.
//!
//! Why: every worker takes in every other's bounds ([`super::sharing`]). Sent through the
//! manager, each batch cost the manager one message in and one out to each other worker, so
//! its work (and, under MPI, the bytes it sends) grew with the workers times the answers,
//! and it was the rank every answer already waits on. Sent straight from the worker that
//! proved them to every other, each worker would send as many copies as there are others.
//! Along a binomial tree (as MPI's own broadcasts go), the worker that proved a batch
//! sends it to at most `⌈log₂ n⌉` others, each of which sends it on to at most as many,
//! and every worker has it after at most `⌈log₂ n⌉` hops.
//!
//! The tree: number the `n` workers from the origin, `(w − origin) mod n`. The worker of
//! number `r` sends to the numbers `r + 2^k` below `n`, for every `2^k` greater than `r`
//! (every `k` at the origin). Each number above 0 has exactly one sender: the one it
//! makes when its highest set bit is cleared.

/// The workers (numbered `0..workers`) that worker `me` passes a batch proved by
/// `origin` on to: its children in the binomial tree rooted at `origin`. Empty for a
/// worker or origin out of range.
pub fn next(origin: usize, me: usize, workers: usize) -> impl Iterator<Item = usize> {
    let valid = origin < workers && me < workers;
    let r = if valid {
        (me + workers - origin) % workers
    } else {
        workers
    };
    // The least power of two above `r` (1 at the origin).
    let first = if r == 0 {
        1
    } else {
        1usize << (usize::BITS - r.leading_zeros())
    };
    std::iter::successors(Some(first), |step: &usize| step.checked_mul(2))
        .map(move |step| r.saturating_add(step))
        .take_while(move |&child| valid && child < workers)
        .map(move |child| (child + origin) % workers)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Follows the tree from `origin`: every worker's receipts of the batch, and the hops
    /// it took to reach each.
    fn spread(origin: usize, workers: usize) -> (Vec<usize>, Vec<usize>) {
        let (mut got, mut hops) = (vec![0; workers], vec![0; workers]);
        got[origin] = 1;
        let mut front = vec![origin];
        while let Some(w) = front.pop() {
            for child in next(origin, w, workers) {
                got[child] += 1;
                hops[child] = hops[w] + 1;
                front.push(child);
            }
        }
        (got, hops)
    }

    /// From every origin, on 1 to 300 workers: each worker has the batch exactly once, in
    /// at most ⌈log₂ n⌉ hops, and none sends more than ⌈log₂ n⌉ copies.
    #[test]
    fn every_worker_has_each_batch_once_within_log_hops() {
        for workers in 1..=300usize {
            let log = usize::BITS - (workers - 1).leading_zeros();
            for origin in [0, 1, workers / 2, workers - 1]
                .into_iter()
                .filter(|&o| o < workers)
            {
                let (got, hops) = spread(origin, workers);
                assert!(
                    got.iter().all(|&g| g == 1),
                    "{workers} from {origin}: {got:?}"
                );
                assert!(
                    hops.iter().all(|&h| h <= log as usize),
                    "{workers}: {hops:?}"
                );
                for w in 0..workers {
                    assert!(next(origin, w, workers).count() <= log as usize);
                }
            }
        }
    }

    /// Sixteen workers from worker 5: the origin sends to four, the worker two hops down
    /// its first branch to none; a worker or origin out of range sends to nobody.
    #[test]
    fn the_tree_of_sixteen() {
        assert_eq!(next(5, 5, 16).collect::<Vec<_>>(), [6, 7, 9, 13]);
        // Number 3 (worker 8) sends to numbers 3 + 4 and 3 + 8: workers 12 and 0.
        assert_eq!(next(5, 8, 16).collect::<Vec<_>>(), [12, 0]);
        // Number 8 (worker 13): 8 + 16 is past the workers.
        assert_eq!(next(5, 13, 16).count(), 0);
        assert_eq!(next(16, 5, 16).count(), 0);
        assert_eq!(next(5, 16, 16).count(), 0);
        assert_eq!(next(0, 0, 1).count(), 0);
    }
}
