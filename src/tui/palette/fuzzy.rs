//! The command palette's fuzzy matcher: a small subsequence scorer (no dependency). The
//! query's characters must appear in the text in order, ignoring case and the query's
//! spaces; among the ways they do, the best-scoring one is kept: a match at the start of
//! a word or right after the previous match scores more, a gap costs a little. So
//! "exp pa" finds "export packet" first, and "nm" finds "next month".

/// Points for each matched character.
const MATCH: i32 = 4;
/// A match right after the previous one.
const CONSECUTIVE: i32 = 12;
/// A match at the start of the text.
const TEXT_START: i32 = 10;
/// A match at the start of a word (after a space, `_`, `-`, `:` ...).
const WORD_START: i32 = 8;
/// The most a gap between two matches costs.
const MAX_GAP_COST: i32 = 10;

/// The best score of `query` in `text` and the positions (char indices) it matched;
/// `None` when the query is not a subsequence of the text. An empty query matches
/// everything with score 0.
pub fn score(query: &str, text: &str) -> Option<(i32, Vec<usize>)> {
    let q: Vec<char> = query
        .chars()
        .filter(|c| !c.is_whitespace())
        .flat_map(char::to_lowercase)
        .collect();
    if q.is_empty() {
        return Some((0, Vec::new()));
    }
    let t: Vec<char> = text.chars().collect();
    let lower: Vec<char> = t
        .iter()
        .map(|c| c.to_lowercase().next().unwrap_or(*c))
        .collect();
    let bonus = |j: usize| -> i32 {
        match j.checked_sub(1).and_then(|p| t.get(p)) {
            None => TEXT_START,
            Some(prev) if !prev.is_alphanumeric() => WORD_START,
            _ => 0,
        }
    };
    let gap_cost = |gap: usize| i32::try_from(gap.min(MAX_GAP_COST as usize)).unwrap_or(0);
    // best[i][j]: the best score of q[..=i] with q[i] matched at t[j]; from[i][j] the
    // position of q[i - 1] in that match.
    let n = t.len();
    let mut best: Vec<Vec<Option<i32>>> = vec![vec![None; n]; q.len()];
    let mut from: Vec<Vec<usize>> = vec![vec![0; n]; q.len()];
    for (i, qc) in q.iter().enumerate() {
        for j in 0..n {
            if lower[j] != *qc {
                continue;
            }
            if i == 0 {
                best[0][j] = Some(MATCH + bonus(j) - gap_cost(j) / 2);
                continue;
            }
            let mut top: Option<(i32, usize)> = None;
            for (k, prev) in best[i - 1].iter().enumerate().take(j) {
                let Some(prev) = *prev else {
                    continue;
                };
                let step = if k + 1 == j {
                    CONSECUTIVE.max(bonus(j))
                } else {
                    bonus(j) - gap_cost(j - k - 1)
                };
                let s = prev + MATCH + step;
                if top.is_none_or(|(b, _)| s > b) {
                    top = Some((s, k));
                }
            }
            if let Some((s, k)) = top {
                best[i][j] = Some(s);
                from[i][j] = k;
            }
        }
    }
    let last = q.len() - 1;
    let (end, total) = best[last]
        .iter()
        .enumerate()
        .filter_map(|(j, s)| s.map(|s| (j, s)))
        .max_by_key(|(j, s)| (*s, std::cmp::Reverse(*j)))?;
    let mut positions = vec![end];
    let mut j = end;
    for i in (1..=last).rev() {
        j = from[i][j];
        positions.push(j);
    }
    positions.reverse();
    Some((total, positions))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_subsequence_matches_and_anything_else_does_not() {
        assert!(score("xpt", "export").is_some());
        assert!(score("tpx", "export").is_none());
        assert_eq!(score("", "export"), Some((0, Vec::new())));
        // Case and the query's spaces do not matter.
        assert_eq!(
            score("EXP PA", "export packet").map(|s| s.1),
            Some(vec![0, 1, 2, 7, 8])
        );
    }

    #[test]
    fn word_starts_and_runs_beat_scattered_letters() {
        let (at_words, pos) = score("nm", "next month").expect("match");
        assert_eq!(pos, vec![0, 5], "the word starts, not the n of month");
        let (scattered, _) = score("nm", "an omen").expect("match");
        assert!(at_words > scattered);
        let (run, _) = score("pack", "export packet").expect("match");
        let (spread, _) = score("pack", "previous page check").expect("match");
        assert!(run > spread);
    }

    #[test]
    fn non_ascii_text_is_indexed_by_character() {
        let (_, pos) = score("zoe", "Zoë's bill, zoe").expect("match");
        assert_eq!(pos, vec![12, 13, 14]);
    }
}
