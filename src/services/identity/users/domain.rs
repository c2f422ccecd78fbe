//! Parsed profile types: handles (with the reserved list), languages, names, bios, avatars.
//! Once built, a value is known to be valid.

use super::super::error::IdentityError;
use std::collections::HashSet;
use std::sync::OnceLock;

/// A handle: 3 to 30 of `[a-z0-9_]`, starting with a letter, not ending in `_`, no `__`.
/// Input is trimmed, a leading `@` dropped and letters lowercased.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Handle(String);

impl Handle {
    pub fn parse(raw: &str) -> Result<Self, IdentityError> {
        let h = raw.trim().trim_start_matches('@').to_ascii_lowercase();
        let err = |m: &str| Err(IdentityError::InvalidHandle(m.to_owned()));
        if !(3..=30).contains(&h.chars().count()) {
            return err("handle must be 3 to 30 characters");
        }
        if !h
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
        {
            return err("handle may only contain lowercase letters, digits and underscores");
        }
        if !h.as_bytes()[0].is_ascii_lowercase() {
            return err("handle must start with a letter");
        }
        if h.ends_with('_') || h.contains("__") {
            return err("handle may not end with an underscore or contain two in a row");
        }
        Ok(Self(h))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Folds look-alike characters so `he11o` and `hello` collide.
    pub fn canonical(&self) -> String {
        canonical(&self.0)
    }

    /// Reserved when it folds onto a reserved word, reading `1` as `l` or as `i`
    /// (`adm1n` is `admin`, `he1p` is `help`).
    pub fn is_reserved(&self) -> bool {
        let set = reserved();
        [fold(&self.0, 'l'), fold(&self.0, 'i')]
            .iter()
            .any(|f| set.contains(f.as_str()) || f.starts_with("switchboard"))
    }
}

/// Folds `0` to `o` and `1` to `one`.
fn fold(s: &str, one: char) -> String {
    s.chars()
        .map(|c| match c {
            '0' => 'o',
            '1' => one,
            c => c,
        })
        .collect()
}

fn canonical(s: &str) -> String {
    fold(s, 'l')
}

fn reserved() -> &'static HashSet<String> {
    static SET: OnceLock<HashSet<String>> = OnceLock::new();
    SET.get_or_init(|| {
        include_str!("reserved_handles.txt")
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty() && !l.starts_with('#'))
            .map(str::to_owned)
            .collect()
    })
}

/// ISO 639-1 two-letter language code, lowercase.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Language(String);

const ISO_639_1: &str = "aa ab ae af ak am an ar as av ay az ba be bg bh bi bm bn bo br bs ca ce ch co cr cs cu cv cy da de dv dz ee el en eo es et eu fa ff fi fj fo fr fy ga gd gl gn gu gv ha he hi ho hr ht hu hy hz ia id ie ig ii ik io is it iu ja jv ka kg ki kj kk kl km kn ko kr ks ku kv kw ky la lb lg li ln lo lt lu lv mg mh mi mk ml mn mr ms mt my na nb nd ne ng nl nn no nr nv ny oc oj om or os pa pi pl ps pt qu rm rn ro ru rw sa sc sd se sg si sk sl sm sn so sq sr ss st su sv sw ta te tg th ti tk tl tn to tr ts tt tw ty ug uk ur uz ve vi vo wa wo xh yi yo za zh zu";

impl Language {
    pub fn parse(raw: &str) -> Result<Self, IdentityError> {
        let l = raw.trim().to_ascii_lowercase();
        if l.len() == 2 && ISO_639_1.split(' ').any(|c| c == l) {
            Ok(Self(l))
        } else {
            Err(IdentityError::InvalidRequest(
                "language must be a two-letter ISO 639-1 code, e.g. en".into(),
            ))
        }
    }

    pub fn into_inner(self) -> String {
        self.0
    }
}

/// Display name: 1 to 100 characters after trimming, no control characters.
pub fn parse_name(raw: &str) -> Result<String, IdentityError> {
    let n = raw.trim();
    if n.is_empty() || n.chars().count() > 100 || n.chars().any(char::is_control) {
        return Err(IdentityError::InvalidRequest(
            "name must be 1 to 100 printable characters".into(),
        ));
    }
    Ok(n.to_owned())
}

/// Bio: up to 500 characters; newlines allowed, other control characters not.
pub fn parse_bio(raw: &str) -> Result<String, IdentityError> {
    if raw.chars().count() > 500 || raw.chars().any(|c| c.is_control() && c != '\n') {
        return Err(IdentityError::InvalidRequest(
            "bio must be at most 500 characters".into(),
        ));
    }
    Ok(raw.trim().to_owned())
}

/// Avatar URL: an absolute http(s) URL of at most 2048 characters.
pub fn parse_avatar_url(raw: &str) -> Result<String, IdentityError> {
    let bad = || IdentityError::InvalidRequest("avatar_url must be an http(s) URL".into());
    if raw.len() > 2048 {
        return Err(bad());
    }
    let url = url::Url::parse(raw.trim()).map_err(|_| bad())?;
    if !matches!(url.scheme(), "http" | "https") || url.host_str().is_none() {
        return Err(bad());
    }
    Ok(url.to_string())
}

pub const DELETE_CONFIRMATION: &str = "DELETE MY ACCOUNT";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn handle_rules() {
        assert_eq!(Handle::parse("@Alice_01").unwrap().as_str(), "alice_01");
        for bad in [
            "ab",
            "1abc",
            "_abc",
            "abc_",
            "a__b",
            "ab-c",
            "abc def",
            &"a".repeat(31),
        ] {
            assert!(Handle::parse(bad).is_err(), "{bad}");
        }
        assert_eq!(Handle::parse("he11o").unwrap().canonical(), "hello");
        assert_eq!(Handle::parse("b0b").unwrap().canonical(), "bob");
    }

    #[test]
    fn reserved_and_lookalikes() {
        assert!(Handle::parse("admin").unwrap().is_reserved());
        assert!(Handle::parse("adm1n").unwrap().is_reserved());
        assert!(Handle::parse("r00t").unwrap().is_reserved());
        assert!(Handle::parse("support").unwrap().is_reserved());
        assert!(!Handle::parse("alice").unwrap().is_reserved());
    }
}
