//! Which IP addresses a webhook may reach when `allow_private_network` is off.
//!
//! Refused: private, loopback and link-local addresses, and also unique-local, multicast,
//! unspecified, IPv4-mapped/compatible IPv6, CGNAT, documentation ranges and the metadata
//! address.
//!
//! The rule is an allow-list at the top (IPv4 unicast outside the special ranges below, IPv6 only
//! inside global unicast `2000::/3`) with the special ranges cut out, so an address family or
//! range nobody thought of is refused rather than let through.
//!
//! Choices for IPv6 that carries an IPv4 address:
//! - IPv4-mapped `::ffff:a.b.c.d`, IPv4-compatible `::a.b.c.d`, NAT64 `64:ff9b::/96` and 6to4
//!   `2002::/16`: the embedded IPv4 address is checked by the IPv4 rule (public → allowed).
//! - Local-use NAT64 `64:ff9b:1::/48` and all of `2001::/23` (Teredo `2001::/32`, benchmarking,
//!   ORCHID and other IETF assignments): refused outright. Teredo hides its client address (XORed)
//!   and routes through relays; no webhook host needs it.

use std::fmt;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// Why an address is not public: a short name of the range, used in the refusal text
/// (e.g. `"loopback"`, `"the cloud metadata address"`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NonPublic(pub &'static str);

impl fmt::Display for NonPublic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.0)
    }
}

/// IPv4 ranges refused, most specific first: (network, prefix length, name).
const V4_REFUSED: &[(u32, u8, &str)] = &[
    (0xA9FE_A9FE, 32, "the cloud metadata address"), // 169.254.169.254
    (0xFFFF_FFFF, 32, "broadcast"),                  // 255.255.255.255
    (0x0000_0000, 8, "unspecified (0.0.0.0/8)"),     // 0.0.0.0/8
    (0x0A00_0000, 8, "private (10.0.0.0/8)"),
    (0x6440_0000, 10, "shared CGNAT (100.64.0.0/10)"),
    (0x7F00_0000, 8, "loopback"),
    (0xA9FE_0000, 16, "link-local"),
    (0xAC10_0000, 12, "private (172.16.0.0/12)"),
    (0xC000_0000, 24, "IETF protocol assignments (192.0.0.0/24)"),
    (0xC000_0200, 24, "documentation (192.0.2.0/24)"),
    (0xC058_6300, 24, "6to4 relay anycast (192.88.99.0/24)"),
    (0xC0A8_0000, 16, "private (192.168.0.0/16)"),
    (0xC612_0000, 15, "benchmarking (198.18.0.0/15)"),
    (0xC633_6400, 24, "documentation (198.51.100.0/24)"),
    (0xCB00_7100, 24, "documentation (203.0.113.0/24)"),
    (0xE000_0000, 4, "multicast"),
    (0xF000_0000, 4, "reserved (240.0.0.0/4)"),
];

/// Checks one IPv4 address: `Ok(())` when a webhook may reach it.
pub fn check_v4(ip: Ipv4Addr) -> Result<(), NonPublic> {
    let bits = u32::from(ip);
    for &(net, prefix, name) in V4_REFUSED {
        let mask = if prefix == 0 {
            0
        } else {
            u32::MAX << (32 - prefix)
        };
        if bits & mask == net {
            return Err(NonPublic(name));
        }
    }
    Ok(())
}

/// `(network, prefix length)` as a 128-bit match.
fn in_v6(bits: u128, net: u128, prefix: u8) -> bool {
    let mask = if prefix == 0 {
        0
    } else {
        u128::MAX << (128 - prefix)
    };
    bits & mask == net
}

/// Checks one IPv6 address: `Ok(())` when a webhook may reach it. Addresses that embed an IPv4
/// address are judged by that address (see the module docs for which ones).
pub fn check_v6(ip: Ipv6Addr) -> Result<(), NonPublic> {
    let bits = u128::from(ip);
    let low_v4 = Ipv4Addr::from((bits & 0xFFFF_FFFF) as u32);
    if bits == 0 {
        return Err(NonPublic("unspecified"));
    }
    if bits == 1 {
        return Err(NonPublic("loopback"));
    }
    // fd00:ec2::254, the AWS metadata address over IPv6 (also inside unique-local, named first).
    if bits == 0xfd00_0ec2_0000_0000_0000_0000_0000_0254 {
        return Err(NonPublic("the cloud metadata address"));
    }
    // ::ffff:a.b.c.d (mapped) and ::a.b.c.d (compatible): judge the IPv4 address.
    if in_v6(bits, 0x0000_0000_0000_0000_0000_ffff_0000_0000, 96) || in_v6(bits, 0, 96) {
        return check_v4(low_v4).map_err(|why| NonPublic(embedded(why)));
    }
    // NAT64 well-known prefix 64:ff9b::/96: judge the IPv4 address.
    if in_v6(bits, 0x0064_ff9b_0000_0000_0000_0000_0000_0000, 96) {
        return check_v4(low_v4).map_err(|why| NonPublic(embedded(why)));
    }
    if !in_v6(bits, 0x2000 << 112, 3) {
        return Err(NonPublic(match bits >> 120 {
            0xff => "multicast",
            0xfc | 0xfd => "unique-local",
            0xfe if (bits >> 118) & 0x3 == 0b10 => "link-local",
            0xfe => "site-local",
            _ => "not global unicast",
        }));
    }
    // Inside 2000::/3 now.
    if in_v6(bits, 0x2001 << 112, 23) {
        return Err(NonPublic("IETF protocol assignments or Teredo (2001::/23)"));
    }
    if in_v6(bits, 0x2001_0db8 << 96, 32) || in_v6(bits, 0x3fff << 112, 20) {
        return Err(NonPublic("documentation"));
    }
    // 6to4 2002:AABB:CCDD::/48 carries a.b.c.d in bits 16..48.
    if in_v6(bits, 0x2002 << 112, 16) {
        let v4 = Ipv4Addr::from(((bits >> 80) & 0xFFFF_FFFF) as u32);
        return check_v4(v4).map_err(|why| NonPublic(embedded(why)));
    }
    Ok(())
}

/// Checks any address: `Ok(())` when a webhook may reach it with `allow_private_network` off.
pub fn check_ip(ip: IpAddr) -> Result<(), NonPublic> {
    match ip {
        IpAddr::V4(v4) => check_v4(v4),
        IpAddr::V6(v6) => check_v6(v6),
    }
}

/// The name of a range seen through an IPv6 address that embeds it.
fn embedded(why: NonPublic) -> &'static str {
    match why.0 {
        "loopback" => "loopback (inside an IPv6 address)",
        "the cloud metadata address" => "the cloud metadata address (inside an IPv6 address)",
        "link-local" => "link-local (inside an IPv6 address)",
        "unspecified (0.0.0.0/8)" => "unspecified (inside an IPv6 address)",
        "multicast" => "multicast (inside an IPv6 address)",
        _ => "a non-public IPv4 address inside an IPv6 address",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v4(s: &str) -> Result<(), NonPublic> {
        check_ip(s.parse().unwrap())
    }

    #[test]
    fn refuses_every_special_ipv4_range() {
        for ip in [
            "0.0.0.0",
            "0.1.2.3",
            "10.0.0.1",
            "10.255.255.255",
            "100.64.0.1",
            "100.127.255.254",
            "100.100.100.200",
            "127.0.0.1",
            "127.255.255.254",
            "169.254.0.1",
            "169.254.169.254",
            "172.16.0.1",
            "172.31.255.255",
            "192.0.0.8",
            "192.0.2.1",
            "192.88.99.1",
            "192.168.1.1",
            "198.18.0.1",
            "198.19.255.255",
            "198.51.100.7",
            "203.0.113.9",
            "224.0.0.1",
            "239.255.255.250",
            "240.0.0.1",
            "255.255.255.255",
        ] {
            assert!(v4(ip).is_err(), "{ip} must be refused");
        }
    }

    #[test]
    fn accepts_public_ipv4_next_to_special_ranges() {
        for ip in [
            "1.1.1.1",
            "8.8.8.8",
            "9.255.255.255",
            "11.0.0.0",
            "100.63.255.255",
            "100.128.0.0",
            "126.255.255.255",
            "128.0.0.0",
            "169.253.255.255",
            "172.15.255.255",
            "172.32.0.0",
            "192.167.255.255",
            "192.169.0.0",
            "198.17.255.255",
            "198.20.0.0",
            "223.255.255.255",
        ] {
            assert_eq!(v4(ip), Ok(()), "{ip} is public");
        }
    }

    #[test]
    fn names_the_metadata_address() {
        assert_eq!(
            v4("169.254.169.254"),
            Err(NonPublic("the cloud metadata address"))
        );
        assert_eq!(
            v4("fd00:ec2::254"),
            Err(NonPublic("the cloud metadata address"))
        );
        assert_eq!(v4("127.0.0.1"), Err(NonPublic("loopback")));
        assert_eq!(v4("::1"), Err(NonPublic("loopback")));
    }

    #[test]
    fn refuses_special_ipv6_and_embedded_private_ipv4() {
        for ip in [
            "::",
            "::1",
            "::ffff:127.0.0.1",
            "::ffff:10.0.0.1",
            "::ffff:169.254.169.254",
            "::127.0.0.1",
            "::10.1.2.3",
            "64:ff9b::127.0.0.1",
            "64:ff9b::a9fe:a9fe",
            "64:ff9b:1::1",
            "2002:7f00:1::1",
            "2002:a9fe:a9fe::",
            "2002:c0a8:101::1",
            "2001::1",
            "2001:0:4136:e378:8000:63bf:3fff:fdd2",
            "2001:2::1",
            "2001:db8::1",
            "3fff::1",
            "fc00::1",
            "fd12:3456::1",
            "fe80::1",
            "febf::1",
            "fec0::1",
            "ff02::1",
            "ff0e::1",
            "100::1",
            "::2",
            "1::",
        ] {
            assert!(v4(ip).is_err(), "{ip} must be refused");
        }
    }

    #[test]
    fn accepts_public_ipv6_and_embedded_public_ipv4() {
        for ip in [
            "2606:4700:4700::1111",
            "2a00:1450:4001::200e",
            "::ffff:8.8.8.8",
            "64:ff9b::8.8.8.8",
            "2002:808:808::1",
            "2400:cb00::1",
        ] {
            assert_eq!(v4(ip), Ok(()), "{ip} is public");
        }
    }
}
