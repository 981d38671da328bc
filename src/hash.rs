//! A fast 128-bit hash that is the same in every build of lore (std's hasher
//! makes no such promise), for telling whether files changed: the search
//! cache's fingerprints, and the digest of each built-in file.
//!
//! The build script (`src/build.rs`) compiles this file too, to write each
//! built-in file's digest into the binary: it must use nothing but `std`.

/// Not cryptographic: it detects edits, not attacks. Four independent lanes
/// over 32-byte blocks keep it near memory speed.
pub struct Hasher {
    lanes: [u64; 4],
}

const MULTIPLIERS: [u64; 4] = [
    0xff51_afd7_ed55_8ccd,
    0xc4ce_b9fe_1a85_ec53,
    0x9e37_79b9_7f4a_7c15,
    0xd6e8_feb8_6659_fd93,
];

impl Default for Hasher {
    fn default() -> Self {
        Self::new()
    }
}

impl Hasher {
    pub fn new() -> Self {
        Hasher {
            lanes: [
                0x243f_6a88_85a3_08d3,
                0x1319_8a2e_0370_7344,
                0xa409_3822_299f_31d0,
                0x082e_fa98_ec4e_6c89,
            ],
        }
    }

    fn mix(lane: &mut u64, v: u64, k: u64) {
        *lane = (*lane ^ v).wrapping_mul(k).rotate_left(31);
    }

    /// Hashes `bytes` and their length, so consecutive writes cannot run
    /// into each other.
    pub fn write(&mut self, bytes: &[u8]) {
        let mut blocks = bytes.chunks_exact(32);
        for block in &mut blocks {
            for (i, word) in block.chunks_exact(8).enumerate() {
                let v = u64::from_le_bytes(word.try_into().unwrap_or([0; 8]));
                Self::mix(&mut self.lanes[i], v, MULTIPLIERS[i]);
            }
        }
        let rest = blocks.remainder();
        let mut tail = [0u8; 32];
        tail[..rest.len()].copy_from_slice(rest);
        for (i, word) in tail.chunks_exact(8).enumerate() {
            let v = u64::from_le_bytes(word.try_into().unwrap_or([0; 8]));
            Self::mix(&mut self.lanes[i], v, MULTIPLIERS[i]);
        }
        for (i, lane) in self.lanes.iter_mut().enumerate() {
            Self::mix(lane, bytes.len() as u64, MULTIPLIERS[(i + 1) % 4]);
        }
    }

    /// The hash of everything written so far.
    pub fn finish(&self) -> u128 {
        let [a, b, c, d] = self.lanes;
        let mut x = a ^ c.rotate_left(17) ^ b.rotate_left(41);
        let mut y = b ^ d.rotate_left(23) ^ c.rotate_left(7);
        x = (x ^ (x >> 33)).wrapping_mul(MULTIPLIERS[0]);
        x ^= d;
        y = (y ^ (y >> 29)).wrapping_mul(MULTIPLIERS[1]);
        y ^= a;
        x = (x ^ (x >> 32)).wrapping_mul(MULTIPLIERS[2]);
        y = (y ^ (y >> 32)).wrapping_mul(MULTIPLIERS[3]);
        (u128::from(x) << 64) | u128::from(y)
    }

    /// [`finish`](Self::finish) as 32 hex digits.
    pub fn hex(&self) -> String {
        format!("{:032x}", self.finish())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_hash_is_stable_and_sees_one_byte() {
        let hash = |bytes: &[u8]| {
            let mut h = Hasher::new();
            h.write(bytes);
            h.hex()
        };
        assert_eq!(hash(b"lore"), hash(b"lore"));
        assert_ne!(hash(b"lore"), hash(b"lord"));
        assert_ne!(hash(b""), hash(b"\0"));
        let mut split = Hasher::new();
        split.write(b"ab");
        split.write(b"c");
        let mut other = Hasher::new();
        other.write(b"a");
        other.write(b"bc");
        assert_ne!(split.hex(), other.hex());
    }

    /// The value every earlier lore wrote for this input: caches and
    /// records on disk stay valid across the move to `finish`.
    #[test]
    fn the_hex_form_is_unchanged() {
        let mut h = Hasher::new();
        h.write(b"lore");
        assert_eq!(h.hex(), HEX_OF_LORE);
    }

    const HEX_OF_LORE: &str = "6f8d57a8d3a6d73a76635dd42f2a8580";
}
