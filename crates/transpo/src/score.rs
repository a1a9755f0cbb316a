//! Mate-like scores in the table: stored relative to the node, read back relative to the root.
//!
//! A search scores "mate in 5 plies from here" as `MATE - (ply + 5)`, a distance from the
//! root. The same position reached at another ply is just as far from mate, but not from the
//! root, so the table stores the distance from the node (`score + ply`) and a probe at a
//! different ply converts back (`stored - ply`). Scores within `mate_threshold` of zero are
//! ordinary evaluations and pass through unchanged. Negative mates mirror positive ones.

/// Converts a root-relative score found at `ply` into the node-relative score to store.
pub const fn to_table(score: i32, ply: i32, mate_threshold: i32) -> i32 {
    if score >= mate_threshold {
        score + ply
    } else if score <= -mate_threshold {
        score - ply
    } else {
        score
    }
}

/// Converts a node-relative stored score into a root-relative one at `ply`.
pub const fn from_table(stored: i32, ply: i32, mate_threshold: i32) -> i32 {
    if stored >= mate_threshold {
        stored - ply
    } else if stored <= -mate_threshold {
        stored + ply
    } else {
        stored
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MATE: i32 = 32000;
    const THRESHOLD: i32 = MATE - 256;

    #[test]
    fn mate_distance_is_kept_across_plies() {
        // Mate in 3 plies from a node at ply 4 is `MATE - 7` at the root.
        let stored = to_table(MATE - 7, 4, THRESHOLD);
        assert_eq!(stored, MATE - 3);
        // Reached again at ply 10, the same node is mated 3 plies later: MATE - 13.
        assert_eq!(from_table(stored, 10, THRESHOLD), MATE - 13);
        assert_eq!(
            from_table(to_table(-MATE + 7, 4, THRESHOLD), 10, THRESHOLD),
            -MATE + 13
        );
    }

    #[test]
    fn ordinary_scores_pass_through() {
        for score in [-THRESHOLD + 1, -1, 0, 35, THRESHOLD - 1] {
            assert_eq!(to_table(score, 17, THRESHOLD), score);
            assert_eq!(from_table(score, 17, THRESHOLD), score);
        }
    }

    #[test]
    fn round_trip_at_the_same_ply_is_identity() {
        for score in [-MATE, -THRESHOLD, 0, THRESHOLD, MATE - 1] {
            for ply in [0, 1, 60, 200] {
                assert_eq!(
                    from_table(to_table(score, ply, THRESHOLD), ply, THRESHOLD),
                    score
                );
            }
        }
    }
}
