//! Text folding for search: stored text and queries are folded the same way, so matching is
//! case- and diacritic-insensitive with a plain substring comparison in SQL on either backend.

use unicode_normalization::{char::is_combining_mark, UnicodeNormalization};

/// Lower-cased, with diacritics removed (`Café Müller` → `cafe muller`).
pub fn fold(text: &str) -> String {
    text.nfd()
        .filter(|c| !is_combining_mark(*c))
        .flat_map(char::to_lowercase)
        .collect()
}

/// The folded words of `text`: runs of letters and digits, so punctuation and spaces separate
/// words (`'s-Hertogenbosch` → `s`, `hertogenbosch`).
pub fn words(text: &str) -> Vec<String> {
    fold(text)
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_owned)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::{fold, words};

    #[test]
    fn words_split_folded_text_on_everything_but_letters_and_digits() {
        assert_eq!(
            words("Zoo's-Hertogenbosch, Café 2!"),
            ["zoo", "s", "hertogenbosch", "cafe", "2"]
        );
        assert!(words(" -- ").is_empty());
    }

    #[test]
    fn folds_case_and_diacritics() {
        assert_eq!(fold("Café Müller"), "cafe muller");
        assert_eq!(fold("ÉCOLE Ångström"), "ecole angstrom");
        assert_eq!(fold("Zoo's-Hertogenbosch"), "zoo's-hertogenbosch");
        // Composed and decomposed input fold alike.
        assert_eq!(fold("e\u{301}"), fold("\u{e9}"));
    }
}
