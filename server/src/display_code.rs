//! Codes people read and type: order display ids (`BX-7K3M-9Q2P`), ticket codes and debtor
//! codes, in Crockford base32 without I, L, O and U, so none is ambiguous read aloud.

use rand::Rng;

const CROCKFORD: &[u8] = b"0123456789ABCDEFGHJKMNPQRSTVWXYZ";

/// `n` random Crockford base32 characters from the operating system's generator.
pub fn crockford(n: usize) -> String {
    let mut rng = rand::rngs::OsRng;
    (0..n)
        .map(|_| CROCKFORD[rng.gen_range(0..CROCKFORD.len())] as char)
        .collect()
}

/// Whether `text` could be a ticket code (`lifecycle::issue_tickets`), leaving room for
/// codes a provider issues: 1 to 64 letters, digits and dashes.
pub fn is_plausible_ticket_code(text: &str) -> bool {
    (1..=64).contains(&text.len()) && text.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_have_the_length_asked_and_no_ambiguous_letter() {
        let code = crockford(64);
        assert_eq!(code.len(), 64);
        assert!(code.bytes().all(|b| CROCKFORD.contains(&b)));
        assert!(!code.contains(['I', 'L', 'O', 'U']));
        assert_ne!(crockford(12), crockford(12));
    }

    #[test]
    fn only_what_a_ticket_code_can_be_is_plausible() {
        assert!(is_plausible_ticket_code(&crockford(12)));
        assert!(is_plausible_ticket_code("BX-7K3M"));
        assert!(!is_plausible_ticket_code(""));
        assert!(!is_plausible_ticket_code(&"A".repeat(65)));
        assert!(!is_plausible_ticket_code("https://example.com/"));
    }
}
