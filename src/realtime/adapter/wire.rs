//! The wire format of `@socket.io/redis-adapter` (the classic adapter, 8.x): channel names,
//! the msgpack broadcast message `[uid, packet, opts]`, and the JSON-or-msgpack requests and
//! responses. Binary travels inline as msgpack `bin`; here it becomes Socket.IO attachments
//! (placeholders in depth-first order) and back.

use actix_web::web::Bytes;
use rmpv::Value as Mp;
use serde_json::{Map, Number, Value};

pub use super::super::rooms::Target;
use super::super::socketio::{self, Frame, PacketKind};

/// The channels of one namespace under one key (the adapter's `key` option).
#[derive(Debug, Clone)]
pub(crate) struct Channels {
    /// `<key>#<nsp>#`: broadcasts to 0 or several rooms; `<base><room>#` for exactly one.
    pub base: String,
    /// `<key>-request#<nsp>#`; Node counts the servers of a fleet by its subscribers.
    pub request: String,
    /// `<key>-response#<nsp>#`; `<response><uid>#` reaches one requester only.
    pub response: String,
}

impl Channels {
    pub fn new(key: &str, nsp: &str) -> Self {
        Self {
            base: format!("{key}#{nsp}#"),
            request: format!("{key}-request#{nsp}#"),
            response: format!("{key}-response#{nsp}#"),
        }
    }

    /// Where a broadcast to `rooms` goes: the room's own channel for exactly one room.
    pub fn broadcast(&self, rooms: &[String]) -> String {
        match rooms {
            [room] => format!("{}{room}#", self.base),
            _ => self.base.clone(),
        }
    }

    /// The pattern that covers the base channel and every room channel, glob characters of
    /// the key and namespace escaped.
    pub fn pattern(&self) -> String {
        let mut p = String::with_capacity(self.base.len() + 2);
        for c in self.base.chars() {
            if matches!(c, '*' | '?' | '[' | ']' | '\\') {
                p.push('\\');
            }
            p.push(c);
        }
        p.push('*');
        p
    }
}

/// A broadcast another node published.
#[derive(Debug)]
pub(crate) struct Incoming {
    pub nsp: String,
    pub target: Target,
    pub frame: Frame,
}

/// The msgpack message for a broadcast of `frame` (as encoded for our own clients).
/// `None` when the frame is not an event this format carries (never publish a malformed
/// message: it crashes Node peers).
pub(crate) fn encode_broadcast(
    uid: &str,
    nsp: &str,
    target: &Target,
    frame: &Frame,
) -> Option<Vec<u8>> {
    let data = frame_data(frame)?;
    let message = Mp::Array(vec![
        Mp::from(uid),
        Mp::Map(vec![
            (Mp::from("type"), Mp::from(PacketKind::Event as u8)),
            (Mp::from("data"), data),
            (Mp::from("nsp"), Mp::from(nsp)),
        ]),
        opts(target, Vec::new()),
    ]);
    to_vec(&message)
}

/// `{rooms, except, flags}` as the adapter reads it (arrays, never absent).
pub(crate) fn opts(target: &Target, flags: Vec<(Mp, Mp)>) -> Mp {
    let strings = |v: &[String]| Mp::Array(v.iter().map(|s| Mp::from(s.as_str())).collect());
    Mp::Map(vec![
        (Mp::from("rooms"), strings(&target.rooms)),
        (Mp::from("except"), strings(&target.except)),
        (Mp::from("flags"), Mp::Map(flags)),
    ])
}

pub(crate) fn to_vec(value: &Mp) -> Option<Vec<u8>> {
    let mut buf = Vec::with_capacity(64);
    rmpv::encode::write_value(&mut buf, value).ok()?;
    Some(buf)
}

/// Reads a broadcast message; `None` for anything malformed or our own (`own_uid`).
pub(crate) fn decode_broadcast(payload: &[u8], own_uid: &str) -> Option<Incoming> {
    let Mp::Array(mut parts) = decode_exact(payload)? else {
        return None;
    };
    if parts.len() < 3 || parts[0].as_str() == Some(own_uid) {
        return None;
    }
    let opts = parts.pop()?;
    let packet = parts.pop()?;
    let nsp = field(&packet, "nsp")
        .and_then(Mp::as_str)
        .unwrap_or("/")
        .to_owned();
    let target = target_of(&opts)?;
    let frame = event_frame(&nsp, field(&packet, "data")?, None)?;
    Some(Incoming { nsp, target, frame })
}

/// msgpack with nothing after the value (notepack refuses trailing bytes too).
pub(crate) fn decode_exact(payload: &[u8]) -> Option<Mp> {
    let mut rest = payload;
    let value = rmpv::decode::read_value(&mut rest).ok()?;
    rest.is_empty().then_some(value)
}

/// A request or response: JSON when it starts with `{`, msgpack otherwise.
pub(crate) fn decode_request(payload: &[u8]) -> Option<Mp> {
    if payload.first() == Some(&b'{') {
        let json: Value = serde_json::from_slice(payload).ok()?;
        Some(json_to_mp(json, &[]))
    } else {
        decode_exact(payload)
    }
}

/// The value of `key` in a msgpack map.
pub(crate) fn field<'a>(map: &'a Mp, key: &str) -> Option<&'a Mp> {
    map.as_map()?
        .iter()
        .find(|(k, _)| k.as_str() == Some(key))
        .map(|(_, v)| v)
}

/// `{rooms, except}` of a message's `opts`; room names may be numbers in JS.
pub(crate) fn target_of(opts: &Mp) -> Option<Target> {
    let list = |key| -> Option<Vec<String>> {
        match field(opts, key) {
            None | Some(Mp::Nil) => Some(Vec::new()),
            Some(Mp::Array(items)) => Some(items.iter().filter_map(room_name).collect()),
            Some(_) => None,
        }
    };
    Some(Target {
        rooms: list("rooms")?,
        except: list("except")?,
    })
}

pub(crate) fn room_name(v: &Mp) -> Option<String> {
    match v {
        Mp::String(s) => s.as_str().map(str::to_owned),
        Mp::Integer(i) => Some(i.to_string()),
        Mp::F64(f) => Some(f.to_string()),
        _ => None,
    }
}

/// The frame our clients get for `data` (`[event, ...args]`), binary turned into
/// attachments; `ack` asks the clients to acknowledge.
pub(crate) fn event_frame(nsp: &str, data: &Mp, ack: Option<u64>) -> Option<Frame> {
    let Mp::Array(items) = data else {
        return None;
    };
    let (name, args) = items.split_first()?;
    let name = name.as_str()?;
    let mut attachments = Vec::new();
    let args: Vec<Value> = args
        .iter()
        .map(|a| mp_to_json(a, &mut attachments))
        .collect();
    socketio::event_frame_with_id(nsp, name, &args, attachments, ack).ok()
}

fn mp_to_json(v: &Mp, attachments: &mut Vec<Bytes>) -> Value {
    match v {
        Mp::Nil => Value::Null,
        Mp::Boolean(b) => Value::Bool(*b),
        Mp::Integer(i) => i
            .as_i64()
            .map(Number::from)
            .or_else(|| i.as_u64().map(Number::from))
            .map_or(Value::Null, Value::Number),
        Mp::F32(f) => float(f64::from(*f)),
        Mp::F64(f) => float(*f),
        Mp::String(s) => Value::String(s.as_str().map_or_else(
            || String::from_utf8_lossy(s.as_bytes()).into_owned(),
            str::to_owned,
        )),
        Mp::Binary(b) => {
            attachments.push(Bytes::copy_from_slice(b));
            socketio::placeholder(attachments.len() - 1)
        }
        Mp::Array(items) => {
            Value::Array(items.iter().map(|i| mp_to_json(i, attachments)).collect())
        }
        Mp::Map(entries) => {
            let mut map = Map::with_capacity(entries.len());
            for (k, v) in entries {
                let key = match k {
                    Mp::String(s) => s.as_str().unwrap_or_default().to_owned(),
                    other => mp_to_json(other, attachments).to_string(),
                };
                map.insert(key, mp_to_json(v, attachments));
            }
            Value::Object(map)
        }
        // A JS Date reaches Node clients as its ISO string.
        Mp::Ext(-1, bytes) => timestamp(bytes).map_or(Value::Null, Value::String),
        Mp::Ext(kind, bytes) => {
            attachments.push(Bytes::copy_from_slice(bytes));
            Value::Array(vec![
                Value::from(*kind),
                socketio::placeholder(attachments.len() - 1),
            ])
        }
    }
}

/// NaN and infinities become `null`, as `JSON.stringify` makes them.
fn float(f: f64) -> Value {
    Number::from_f64(f).map_or(Value::Null, Value::Number)
}

/// The msgpack timestamp extension (32, 64 or 96 bits) as `2024-01-02T03:04:05.678Z`.
fn timestamp(bytes: &[u8]) -> Option<String> {
    let (secs, nanos) = match bytes.len() {
        4 => (i64::from(u32::from_be_bytes(bytes.try_into().ok()?)), 0),
        8 => {
            let v = u64::from_be_bytes(bytes.try_into().ok()?);
            (
                i64::try_from(v & 0x3_ffff_ffff).ok()?,
                u32::try_from(v >> 34).ok()?,
            )
        }
        12 => (
            i64::from_be_bytes(bytes[4..].try_into().ok()?),
            u32::from_be_bytes(bytes[..4].try_into().ok()?),
        ),
        _ => return None,
    };
    let t = chrono::DateTime::from_timestamp(secs, nanos)?;
    Some(t.to_rfc3339_opts(chrono::SecondsFormat::Millis, true))
}

/// `[event, ...args]` of an event frame as msgpack, attachments inline as `bin`.
fn frame_data(frame: &Frame) -> Option<Mp> {
    let packet = socketio::decode(frame.text.strip_prefix('4')?).ok()?;
    if !matches!(packet.kind, PacketKind::Event | PacketKind::BinaryEvent) {
        return None;
    }
    Some(json_to_mp(packet.data?, &frame.attachments))
}

/// JSON to msgpack, placeholders replaced by the attachments they stand for.
pub(crate) fn json_to_mp(v: Value, attachments: &[Bytes]) -> Mp {
    if let Some(bin) = socketio::placeholder_index(&v).and_then(|i| attachments.get(i)) {
        return Mp::Binary(bin.to_vec());
    }
    match v {
        Value::Null => Mp::Nil,
        Value::Bool(b) => Mp::Boolean(b),
        Value::Number(n) => {
            if let Some(i) = n.as_i64() {
                Mp::from(i)
            } else if let Some(u) = n.as_u64() {
                Mp::from(u)
            } else {
                Mp::F64(n.as_f64().unwrap_or_default())
            }
        }
        Value::String(s) => Mp::from(s),
        Value::Array(items) => Mp::Array(
            items
                .into_iter()
                .map(|i| json_to_mp(i, attachments))
                .collect(),
        ),
        Value::Object(map) => Mp::Map(
            map.into_iter()
                .map(|(k, v)| (Mp::from(k), json_to_mp(v, attachments)))
                .collect(),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn hex(s: &str) -> Vec<u8> {
        s.split_whitespace()
            .map(|b| u8::from_str_radix(b, 16).unwrap())
            .collect()
    }

    #[test]
    fn channels_and_pattern() {
        let c = Channels::new("switchboard/marketplace", "/");
        assert_eq!(c.broadcast(&["r1".into()]), "switchboard/marketplace#/#r1#");
        assert_eq!(c.broadcast(&[]), "switchboard/marketplace#/#");
        assert_eq!(c.request, "switchboard/marketplace-request#/#");
        assert_eq!(Channels::new("a*b", "/").pattern(), "a\\*b#/#*");
    }

    #[test]
    fn reads_the_binary_example_of_the_notes() {
        // [uid "AbC123", {type 2, data ["file", <01 02 03>], nsp "/"},
        //  {rooms ["r1"], except ["sid1"], flags {volatile: true}}]
        let bytes = hex(
            "93 a6 41 62 43 31 32 33 83 a4 74 79 70 65 02 a4 64 61 74 61 92 a4 66 69 6c 65 c4 03 01 02 03
             a3 6e 73 70 a1 2f 83 a5 72 6f 6f 6d 73 91 a2 72 31 a6 65 78 63 65 70 74 91 a4 73 69 64 31
             a5 66 6c 61 67 73 81 a8 76 6f 6c 61 74 69 6c 65 c3",
        );
        let m = decode_broadcast(&bytes, "me").unwrap();
        assert_eq!(m.nsp, "/");
        assert_eq!(m.target.rooms, ["r1"]);
        assert_eq!(m.target.except, ["sid1"]);
        assert_eq!(
            &*m.frame.text,
            r#"451-["file",{"_placeholder":true,"num":0}]"#
        );
        assert_eq!(m.frame.attachments, [Bytes::from_static(&[1, 2, 3])]);
        assert!(
            decode_broadcast(&bytes, "AbC123").is_none(),
            "our own message"
        );
        let mut trailing = bytes.clone();
        trailing.push(0);
        assert!(decode_broadcast(&trailing, "me").is_none());
        assert!(decode_broadcast(br#"{"uid":"x"}"#, "me").is_none());
    }

    #[test]
    fn round_trips_a_frame_with_binary() {
        let bin = vec![Bytes::from_static(&[9, 8])];
        let frame = socketio::event_frame(
            "/chat",
            "m",
            &[
                json!({"a": [1, -2, 2.5, null, true]}),
                socketio::placeholder(0),
            ],
            bin,
        )
        .unwrap();
        let target = Target {
            rooms: vec!["r1".into()],
            except: vec!["s".into()],
        };
        let bytes = encode_broadcast("peer", "/chat", &target, &frame).unwrap();
        let back = decode_broadcast(&bytes, "me").unwrap();
        assert_eq!((back.nsp.as_str(), &back.target), ("/chat", &target));
        assert_eq!(back.frame, frame);
    }

    #[test]
    fn dates_become_iso_strings() {
        // timestamp64: 678 ms after 2024-01-02T03:04:05Z
        let nanos: u64 = 678_000_000;
        let secs: u64 = 1_704_164_645;
        let v = (nanos << 34) | secs;
        let s = timestamp(&v.to_be_bytes()).unwrap();
        assert_eq!(s, "2024-01-02T03:04:05.678Z");
    }
}
