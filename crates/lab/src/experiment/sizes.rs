//! Table sizes in entries, as the command line gives them (`8K`, `1M`, `8K..1024K`) and as
//! reports name them.

/// Parses a table size: `8192`, `8K` (8 × 1024) or `1M` (1024 × 1024).
pub fn parse_size(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let (digits, unit) = match t.char_indices().last() {
        Some((i, 'K' | 'k')) => (&t[..i], 1 << 10),
        Some((i, 'M' | 'm')) => (&t[..i], 1 << 20),
        _ => (t, 1),
    };
    let n: u64 = digits
        .parse()
        .map_err(|_| format!("bad table size {s:?}: expected e.g. 8K, 1024K, 1M or 65536"))?;
    match n.checked_mul(unit) {
        Some(0) | None => Err(format!("bad table size {s:?}: must be between 1 and 2^64")),
        Some(entries) => Ok(entries),
    }
}

/// Sizes as a list (`8K,16K`) or a range of powers of two (`8K..1024K`), ascending, each once.
pub fn parse_sizes(s: &str) -> Result<Vec<u64>, String> {
    let mut sizes = if let Some((lo, hi)) = s.split_once("..") {
        let (lo, hi) = (parse_size(lo)?, parse_size(hi)?);
        if !lo.is_power_of_two() || !hi.is_power_of_two() || lo > hi {
            return Err(format!(
                "bad size range {s:?}: expected powers of two, low..high, e.g. 8K..1024K"
            ));
        }
        let mut v = vec![lo];
        while *v.last().unwrap_or(&hi) < hi {
            v.push(v[v.len() - 1] * 2);
        }
        v
    } else {
        s.split(',')
            .map(parse_size)
            .collect::<Result<Vec<_>, _>>()?
    };
    sizes.sort_unstable();
    sizes.dedup();
    Ok(sizes)
}

/// `8K` for 8192 entries, the number itself otherwise.
pub fn size_name(entries: u64) -> String {
    if entries.is_multiple_of(1024) {
        format!("{}K", entries / 1024)
    } else {
        entries.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_parse_and_bad_ones_say_why() {
        assert_eq!(parse_sizes("8K..64K"), Ok(vec![8192, 16384, 32768, 65536]));
        assert_eq!(parse_sizes("16K,8K,1M"), Ok(vec![8192, 16384, 1 << 20]));
        assert!(
            parse_sizes("8K..12K")
                .unwrap_err()
                .contains("powers of two")
        );
        assert!(parse_sizes("8Q").unwrap_err().contains("8Q"));
        assert!(parse_sizes("0").is_err());
        assert_eq!(size_name(8192), "8K");
        assert_eq!(size_name(10_000), "10000");
    }
}
