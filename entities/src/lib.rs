//! SeaORM entities (dense format), one folder per service. Table names carry the service
//! as a prefix because services share one database.

/// What every [`states!`] enum offers, so one filter reads a query's word into any of them.
pub trait Words: Sized + Copy + 'static {
    /// Every value's word, in the order of the enum.
    const WORDS: &'static [&'static str];

    fn parse(word: &str) -> Option<Self>;
}

/// A status or kind column's values: a `DeriveActiveEnum` stored as each variant's word,
/// serialized as the same word, with `ALL`, `WORDS`, `as_str`, `parse` and [`Words`]. Each
/// word is written once, so the stored text, the wire text and a filter's accepted words
/// cannot drift apart. The one macro of every service's states.
macro_rules! states {
    (
        $(#[$meta:meta])*
        pub enum $name:ident {
            $( $(#[$vmeta:meta])* $variant:ident = $word:literal, )+
        }
    ) => {
        $(#[$meta])*
        #[derive(
            Clone, Copy, Debug, PartialEq, Eq, Hash,
            sea_orm::EnumIter, sea_orm::DeriveActiveEnum, serde::Serialize, serde::Deserialize,
        )]
        #[sea_orm(rs_type = "String", db_type = "String(StringLen::None)")]
        pub enum $name {
            $( $(#[$vmeta])* #[sea_orm(string_value = $word)] #[serde(rename = $word)] $variant, )+
        }

        impl $name {
            /// Every value, in the order of the enum.
            pub const ALL: &'static [Self] = &[$(Self::$variant),+];
            /// Every state's word, in the order of the enum (what a filter accepts).
            pub const WORDS: &'static [&'static str] = &[$($word),+];

            pub const fn as_str(self) -> &'static str {
                match self {
                    $( Self::$variant => $word, )+
                }
            }

            /// The state stored (and answered) as `word`; exact, as the database compares.
            pub fn parse(word: &str) -> Option<Self> {
                match word {
                    $( $word => Some(Self::$variant), )+
                    _ => None,
                }
            }
        }

        impl $crate::Words for $name {
            const WORDS: &'static [&'static str] = &[$($word),+];

            fn parse(word: &str) -> Option<Self> {
                <$name>::parse(word)
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }
    };
}

pub mod advertising;
pub mod core;
pub mod identity;
pub mod interview;
pub mod marketplace;
pub mod messaging;
pub mod txn;

#[cfg(test)]
mod tests {
    use sea_orm::{ActiveEnum, Iterable};

    /// Each state is stored, serialized, listed and parsed as the same word.
    fn words_agree<E>(words: &[&str], as_str: fn(E) -> &'static str, parse: fn(&str) -> Option<E>)
    where
        E: ActiveEnum<Value = String>
            + Iterable
            + Copy
            + PartialEq
            + std::fmt::Debug
            + serde::Serialize,
    {
        let all: Vec<E> = E::iter().collect();
        assert_eq!(all.iter().map(|&e| as_str(e)).collect::<Vec<_>>(), words);
        for e in all {
            assert_eq!(e.to_value(), as_str(e));
            assert_eq!(serde_json::to_value(e).unwrap(), as_str(e));
            assert_eq!(parse(as_str(e)), Some(e));
            assert_eq!(parse(&as_str(e).to_uppercase()), None, "exact, as stored");
        }
    }

    #[test]
    fn every_state_keeps_one_word() {
        use crate::core::job::JobStatus;
        words_agree(JobStatus::WORDS, JobStatus::as_str, JobStatus::parse);
        use crate::interview::{session::SessionStatus, webhook_delivery::DeliveryStatus};
        words_agree(
            SessionStatus::WORDS,
            SessionStatus::as_str,
            SessionStatus::parse,
        );
        words_agree(
            DeliveryStatus::WORDS,
            DeliveryStatus::as_str,
            DeliveryStatus::parse,
        );
        use crate::marketplace::car::CarStatus;
        words_agree(CarStatus::WORDS, CarStatus::as_str, CarStatus::parse);
        assert_eq!(CarStatus::WORDS, ["active", "sold", "reserved"]);
        use crate::messaging::message::MessageStatus;
        words_agree(
            MessageStatus::WORDS,
            MessageStatus::as_str,
            MessageStatus::parse,
        );
        assert_eq!(
            MessageStatus::WORDS,
            [
                "queued",
                "sending",
                "sent",
                "delivered",
                "failed",
                "received"
            ]
        );
        use crate::identity::user::KycStatus;
        words_agree(KycStatus::WORDS, KycStatus::as_str, KycStatus::parse);
        assert_eq!(KycStatus::WORDS, ["none", "pending", "verified"]);
        use crate::core::actor_lease::ActorKind;
        words_agree(ActorKind::WORDS, ActorKind::as_str, ActorKind::parse);
        assert_eq!(
            ActorKind::WORDS,
            [
                "interview.session",
                "marketplace.conversation",
                "webhook.endpoint"
            ]
        );
    }
}
