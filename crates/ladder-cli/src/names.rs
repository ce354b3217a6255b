//! Close names for a player name that is not in the history, the way clap suggests a mistyped
//! subcommand: "Swiatek" finds "Iga Swiatek", "alcaraz" finds "Carlos Alcaraz", "Djokovich" finds
//! "Novak Djokovic".

/// Lower case, with runs of white space as one space and none at the ends.
fn fold(s: &str) -> String {
    s.split_whitespace().map(str::to_lowercase).collect::<Vec<_>>().join(" ")
}

/// The Levenshtein distance between `a` and `b`, by Unicode scalar values.
fn distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            let above = row[j + 1];
            row[j + 1] = (above + 1).min(row[j] + 1).min(diagonal + usize::from(ca != cb));
            diagonal = above;
        }
    }
    row[b.len()]
}

/// How many edits a word of `len` characters may be away and still be offered: one for short
/// words, a quarter of the length for long ones (so "Djokovich" finds "Djokovic", "bob" not "rob").
fn allowed(len: usize) -> usize {
    if len < 4 {
        0
    } else {
        (len / 4).max(1)
    }
}

/// How close `name` is to the `query` (lower is closer), or `None` when it is not close: 0 when
/// they differ only in case or spaces, 1 when every word of the query is a word of the name
/// ("Swiatek" in "Iga Swiatek"), then 2 + the edits when the whole names or one word of each are
/// within a few edits.
fn closeness(query: &str, name: &str) -> Option<usize> {
    let (q, n) = (fold(query), fold(name));
    if q.is_empty() || n.is_empty() {
        return None;
    }
    if q == n {
        return Some(0);
    }
    let name_words: Vec<&str> = n.split(' ').collect();
    if q.split(' ').all(|w| name_words.contains(&w)) {
        return Some(1);
    }
    let whole = distance(&q, &n);
    let mut best = (whole <= allowed(q.chars().count())).then_some(whole);
    for w in q.split(' ') {
        for nw in &name_words {
            let d = distance(w, nw);
            if d <= allowed(w.chars().count()) && best.is_none_or(|b| d < b) {
                best = Some(d);
            }
        }
    }
    best.map(|d| d + 2)
}

/// At most `limit` names of `names` close to `query`, closest first (ties by bytes).
pub fn close_names<'a>(
    query: &str,
    names: impl Iterator<Item = &'a str>,
    limit: usize,
) -> Vec<&'a str> {
    let mut found: Vec<(usize, &str)> =
        names.filter_map(|n| closeness(query, n).map(|c| (c, n))).collect();
    found.sort();
    found.into_iter().take(limit).map(|(_, n)| n).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(query: &str, names: &[&str], expected: &[&str]) {
        assert_eq!(close_names(query, names.iter().copied(), 5), expected, "{query:?}");
    }

    #[test]
    fn a_surname_a_typo_or_another_case_finds_the_name() {
        let tour = ["Iga Swiatek", "Aryna Sabalenka", "Novak Djokovic", "Carlos Alcaraz"];
        check("Swiatek", &tour, &["Iga Swiatek"]);
        check("swiatek", &tour, &["Iga Swiatek"]);
        check("iga  swiatek", &tour, &["Iga Swiatek"]);
        check("Djokovich", &tour, &["Novak Djokovic"]);
        check("Carlos Alcarez", &tour, &["Carlos Alcaraz"]);
        check("Federer", &tour, &[]);
        // Short names need the exact word: "bob" does not suggest "rob".
        check("bob", &["rob", "Bob"], &["Bob"]);
    }

    #[test]
    fn the_closest_come_first() {
        check("alice", &["Alice Smith", "alics", "ALICE"], &["ALICE", "Alice Smith", "alics"]);
    }

    #[test]
    fn distances_by_hand() {
        // kitten -> sitten -> sittin -> sitting: the textbook example, three edits.
        assert_eq!(distance("kitten", "sitting"), 3);
        assert_eq!(distance("", "abc"), 3);
        assert_eq!(distance("swiątek", "swiatek"), 1);
    }
}
