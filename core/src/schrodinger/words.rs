//! The replacement words a namespace mapping draws from: a shipped English word list, shuffled under a seed.
//!
//! No network and no language model: `words.txt` is compiled in, so the browser and the
//! command line draw the same words. It holds 3,525 common, neutral English words (SCOWL's
//! size-10 and size-20 lists, the most common words, its licence in the file's header),
//! made by `scripts/schrodinger-words`: 4 to 8 letters, no plurals or inflected forms, no
//! roman numerals, and nothing on a deny list of profanity, slurs and sexual, body, drug,
//! violent and religious terms kept with core's tests (never compiled in, never shown).
//! Core's test `schrodinger_words` checks every shipped word, and every name mappings of
//! real packages build from them, against that list. The shuffle is a Fisher–Yates over ChaCha8, whose stream is fixed by its
//! specification, so a seed gives the same order everywhere.

use rand_chacha::ChaCha8Rng;
use rand_core::{RngCore, SeedableRng};

const WORDS: &str = include_str!("words.txt");

/// The shipped words, in file order (lowercase ASCII letters, 4 to 8 of them).
pub fn shipped() -> impl Iterator<Item = &'static str> {
    WORDS
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
}

/// A seeded generator; `salt` separates the streams of different uses of one seed.
pub(crate) fn rng(seed: u64, salt: &str) -> ChaCha8Rng {
    let mut key = [0u8; 32];
    key[..8].copy_from_slice(&seed.to_le_bytes());
    // FNV-1a of the salt: any fixed mixing would do, it only has to differ per use.
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in salt.bytes() {
        h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
    }
    key[8..16].copy_from_slice(&h.to_le_bytes());
    ChaCha8Rng::from_seed(key)
}

/// An index below `n` (`n > 0`). The modulo bias is below 2^-40 for any list this size.
pub(crate) fn below(rng: &mut ChaCha8Rng, n: usize) -> usize {
    (rng.next_u64() % n as u64) as usize
}

/// `items` shuffled in place (Fisher–Yates).
pub(crate) fn shuffle<T>(rng: &mut ChaCha8Rng, items: &mut [T]) {
    for i in (1..items.len()).rev() {
        let j = below(rng, i + 1);
        items.swap(i, j);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_list_is_lowercase_letters_without_repeats() {
        let words: Vec<&str> = shipped().collect();
        assert!(words.len() > 3000, "{}", words.len());
        assert!(
            words
                .iter()
                .all(|w| (4..=8).contains(&w.len()) && w.bytes().all(|b| b.is_ascii_lowercase()))
        );
        let unique: std::collections::BTreeSet<&&str> = words.iter().collect();
        assert_eq!(unique.len(), words.len());
    }

    #[test]
    fn a_seed_gives_one_order_and_another_seed_another() {
        let order = |seed| {
            let mut w: Vec<&str> = shipped().collect();
            shuffle(&mut rng(seed, "words"), &mut w);
            w
        };
        assert_eq!(order(7), order(7));
        assert_ne!(order(7), order(8));
        // Pinned: the stream must not change under a dependency update.
        assert_eq!(order(7)[..3], ["bent", "mislead", "twist"]);
    }
}
