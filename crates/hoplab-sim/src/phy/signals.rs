//! The signals on the air at one radio: a short list read on every
//! reception, kept inside the radio (no pointer to follow, no cache line
//! elsewhere) until it outgrows `N` entries.

/// A list with `push` and `swap_remove`, whose order is exactly a `Vec`'s
/// under the same calls (the interference sum adds the powers in it).
#[derive(Clone, Debug)]
pub struct InlineList<T: Copy + Default, const N: usize> {
    inline: [T; N],
    len: usize,
    /// Every element, once there were more than `N`; empty otherwise.
    spill: Vec<T>,
}

impl<T: Copy + Default, const N: usize> Default for InlineList<T, N> {
    fn default() -> Self {
        InlineList { inline: [T::default(); N], len: 0, spill: Vec::new() }
    }
}

impl<T: Copy + Default, const N: usize> InlineList<T, N> {
    pub fn as_slice(&self) -> &[T] {
        if self.spill.is_empty() {
            &self.inline[..self.len]
        } else {
            &self.spill
        }
    }

    pub fn push(&mut self, x: T) {
        if !self.spill.is_empty() {
            self.spill.push(x);
        } else if self.len < N {
            self.inline[self.len] = x;
            self.len += 1;
        } else {
            self.spill.extend_from_slice(&self.inline[..self.len]);
            self.spill.push(x);
            self.len = 0;
        }
    }

    pub fn swap_remove(&mut self, i: usize) -> T {
        if !self.spill.is_empty() {
            return self.spill.swap_remove(i);
        }
        assert!(i < self.len, "index out of bounds");
        let x = self.inline[i];
        self.len -= 1;
        self.inline[i] = self.inline[self.len];
        x
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_a_vecs_order_through_spill_and_back() {
        let mut s = crate::rng::Stream::new(4, 0, crate::rng::Purpose::Topology);
        let (mut v, mut l) = (Vec::new(), InlineList::<u32, 3>::default());
        for k in 0..3000u32 {
            if v.is_empty() || s.unit() < 0.55 {
                v.push(k);
                l.push(k);
            } else {
                let i = (s.unit() * v.len() as f64) as usize;
                assert_eq!(v.swap_remove(i), l.swap_remove(i));
            }
            assert_eq!(v.as_slice(), l.as_slice());
        }
    }
}
