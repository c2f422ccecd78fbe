//! The advertising platform: posters, advertisers and administrators and their sessions, ads, subscriptions, screenshots,
//! the money ledger and support tickets.

pub mod ad;
pub mod ad_view;
pub mod admin;
pub mod admin_recovery_code;
pub mod admin_totp;
pub mod advertiser;
pub mod advertiser_token;
pub mod balance;
pub mod category;
pub mod device_token;
pub mod invoice;
pub mod ledger_entry;
pub mod payment;
pub mod payment_event;
pub mod phone_guard;
pub mod poster;
pub mod screenshot;
pub mod session;
pub mod signin_guard;
pub mod subscription;
pub mod support_message;
pub mod support_ticket;
pub mod transaction;
pub mod withdrawal;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Words;
    use sea_orm::ActiveEnum;

    /// Each value stores the word it answers, and that word reads back as the value.
    macro_rules! round_trips {
        ($($t:ty),+) => {$(
            for v in <$t>::ALL {
                assert_eq!(v.to_value(), v.as_str(), "{v:?}");
                assert_eq!(<$t>::parse(v.as_str()), Some(*v));
            }
            assert_eq!(<$t as Words>::WORDS, <$t>::WORDS);
            assert_eq!(<$t>::parse("nonsense"), None);
        )+};
    }

    #[test]
    fn words_round_trip() {
        round_trips!(
            session::AccountKind,
            poster::PosterStatus,
            poster::KycStatus,
            ad::AdStatus,
            ad::VideoStatus,
            subscription::SubscriptionStatus,
            screenshot::ScreenshotStatus,
            transaction::TransactionKind,
            transaction::TransactionStatus,
            withdrawal::WithdrawalStatus,
            payment::PaymentStatus,
            payment::DisputeStatus,
            payment_event::EventOutcome,
            support_message::AuthorKind
        );
    }

    #[test]
    fn ad_moves() {
        use ad::AdStatus::*;
        assert!(Pending.can_move_to(Approved) && Paused.can_move_to(Approved));
        assert!(!Rejected.can_move_to(Approved) && !Deleted.can_move_to(Approved));
        assert!(Approved.can_move_to(Paused) && !Pending.can_move_to(Paused));
        assert!(!Deleted.can_move_to(Deleted) && Rejected.can_move_to(Deleted));
        // An edit sends back to review only what staff have not stopped.
        assert!(Approved.can_move_to(Pending) && !Paused.can_move_to(Pending));
    }

    #[test]
    fn event_kinds_keep_unknown_types() {
        use payment_event::EventKind;
        for k in EventKind::HANDLED {
            assert_eq!(EventKind::parse(k.as_str()), k);
            assert!(k.is_handled());
        }
        let other = EventKind::parse("charge.captured");
        assert_eq!(other, EventKind::Other("charge.captured".into()));
        assert_eq!(other.as_str(), "charge.captured");
        assert!(other.is_charge() && !other.is_handled());
        assert!(!EventKind::CheckoutCompleted.is_charge());
    }
}
