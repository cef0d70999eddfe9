//! Who a client is (its address, an IPv6 client by its /64) and how much of a limited thing each client holds at once.
//!
//! Three limits share this: connections per client (`listen`), work slots per client
//! (`work`) and the hidden-test queue's turn order by submitter (`jobs`). Until submitters
//! have tokens (issue "Past one machine"), a client is its address. One IPv6 host is
//! usually given a whole /64, so counting its addresses apart would give one machine
//! 2^64 shares: an IPv6 client is its /64 prefix, and an IPv4 address written as IPv6
//! (`::ffff:a.b.c.d`, as a dual-stack socket reports it) is that IPv4 address.

use std::collections::HashMap;
use std::fmt;
use std::net::{IpAddr, Ipv6Addr};
use std::sync::{Arc, Mutex, PoisonError};

/// One client as the limits count it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct ClientKey(IpAddr);

impl ClientKey {
    /// The client that `ip` belongs to.
    pub(crate) fn of(ip: IpAddr) -> Self {
        match ip {
            IpAddr::V4(_) => Self(ip),
            IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
                Some(v4) => Self(IpAddr::V4(v4)),
                None => {
                    let prefix = u128::from(v6) & !((1u128 << 64) - 1);
                    Self(IpAddr::V6(Ipv6Addr::from(prefix)))
                }
            },
        }
    }
}

impl fmt::Display for ClientKey {
    /// `10.0.0.1`, or `2001:db8:1:2::/64`: what the queue stores as a job's submitter.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            IpAddr::V4(v4) => write!(f, "{v4}"),
            IpAddr::V6(v6) => write!(f, "{v6}/64"),
        }
    }
}

/// How many of something each client holds now; clones share the counts.
#[derive(Clone, Debug, Default)]
pub(crate) struct PerClient(Arc<Mutex<HashMap<ClientKey, usize>>>);

/// One unit counted against a client; given back when dropped.
#[derive(Debug)]
pub(crate) struct Held {
    counts: PerClient,
    client: ClientKey,
}

impl PerClient {
    /// Counts one more for the client of `ip`, or `None` when it already holds `max`.
    pub(crate) fn take(&self, ip: IpAddr, max: usize) -> Option<Held> {
        let client = ClientKey::of(ip);
        let mut counts = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        let count = counts.entry(client).or_insert(0);
        if *count >= max {
            return None;
        }
        *count += 1;
        Some(Held {
            counts: self.clone(),
            client,
        })
    }
}

impl Drop for Held {
    fn drop(&mut self) {
        let mut counts = self.counts.0.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(count) = counts.get_mut(&self.client) {
            *count -= 1;
            // Forgotten at zero, so the map holds only clients with something open.
            if *count == 0 {
                counts.remove(&self.client);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_client_is_its_ipv4_address_or_its_ipv6_slash_64() {
        // (address, the client it counts as)
        for (ip, client) in [
            ("10.0.0.1", "10.0.0.1"),
            ("::ffff:10.0.0.1", "10.0.0.1"),
            ("2001:db8:1:2:aaaa:bbbb:cccc:dddd", "2001:db8:1:2::/64"),
            ("2001:db8:1:2::1", "2001:db8:1:2::/64"),
            ("2001:db8:1:3::1", "2001:db8:1:3::/64"),
            ("::1", "::/64"),
        ] {
            let ip: IpAddr = ip.parse().unwrap();
            assert_eq!(ClientKey::of(ip).to_string(), client, "{ip}");
        }
    }

    #[test]
    fn a_client_holds_at_most_its_limit_and_gets_a_place_back_when_one_closes() {
        let counts = PerClient::default();
        let ip = |s: &str| -> IpAddr { s.parse().unwrap() };
        let first = counts.take(ip("2001:db8::1"), 2).expect("one");
        // Another address of the same /64 is the same client.
        let _second = counts.take(ip("2001:db8::2"), 2).expect("two");
        assert!(
            counts.take(ip("2001:db8::3"), 2).is_none(),
            "a third is over the limit"
        );
        assert!(
            counts.take(ip("2001:db8:0:1::1"), 2).is_some(),
            "another /64 is counted apart"
        );
        drop(first);
        assert!(
            counts.take(ip("2001:db8::3"), 2).is_some(),
            "a closed one gives its place back"
        );
    }
}
