//! "Did you mean" for mistyped keywords: the closest known keyword by edit distance,
//! ignoring case, when it is close enough to be a typo (one edit for short words, up to a
//! third of the word's length for longer ones).

/// The AmberScript commands that may open a statement at the top level.
pub const TOP_LEVEL: &[&str] = &[
    "SHADER",
    "BUFFER",
    "PIPELINE",
    "DERIVE_PIPELINE",
    "VIRTUAL_FILE",
    "DEVICE_FEATURE",
    "DEVICE_PROPERTY",
    "DEVICE_EXTENSION",
    "INSTANCE_EXTENSION",
    "SET",
    "RUN",
    "EXPECT",
    "COPY",
    "REPEAT",
    "END",
];

/// The commands inside a `PIPELINE` block.
pub const PIPELINE: &[&str] = &["ATTACH", "BIND", "SUBGROUP", "SHADER_OPTIMIZATION", "END"];

/// The options inside a `SUBGROUP` block.
pub const SUBGROUP: &[&str] = &[
    "FULLY_POPULATED",
    "VARYING_SIZE",
    "REQUIRED_SIZE",
    "MIN_SIZE",
    "MAX_SIZE",
    "END",
];

/// The known word closest to `word`, if it is close enough to be a typo of it.
pub fn closest<'k>(word: &str, known: &[&'k str]) -> Option<&'k str> {
    let upper = word.to_ascii_uppercase();
    let limit = (upper.chars().count() / 3).max(1);
    known
        .iter()
        .map(|k| (strsim::damerau_levenshtein(&upper, k), *k))
        .filter(|(d, k)| *k != word && *d <= limit)
        .min_by_key(|(d, _)| *d)
        .map(|(_, k)| k)
}

/// ` (did you mean `X`?)` when a known word is close to `word`, else nothing.
pub fn hint(word: &str, known: &[&str]) -> String {
    match closest(word, known) {
        Some(k) => format!(" (did you mean `{k}`?)"),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typos_find_their_keyword() {
        assert_eq!(closest("PIPELNE", TOP_LEVEL), Some("PIPELINE"));
        assert_eq!(closest("BUFER", TOP_LEVEL), Some("BUFFER"));
        assert_eq!(closest("ENDD", TOP_LEVEL), Some("END"));
        assert_eq!(closest("EDN", TOP_LEVEL), Some("END"));
        assert_eq!(closest("run", TOP_LEVEL), Some("RUN"));
        assert_eq!(closest("ATACH", PIPELINE), Some("ATTACH"));
        assert_eq!(closest("FROBNICATE", TOP_LEVEL), None);
        assert_eq!(closest("XYZ", TOP_LEVEL), None);
        // A known word is not a typo of itself.
        assert_eq!(closest("RUN", TOP_LEVEL), None);
    }
}
