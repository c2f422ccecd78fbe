//! The advertising platform's operator commands (`switchboard admin …`): an ad funded
//! before advertisers sign up and pay, and staff accounts.

use super::ads::create::{create_approved, NewAd};
use super::staff::accounts;
use crate::core::admin::{AdminContext, AdminRun};
use crate::providers::storage::StorageKey;
use crate::providers::Providers;
use clap::{FromArgMatches, Subcommand};
use std::path::Path;

#[derive(Subcommand)]
pub enum Command {
    /// Make an approved advertising ad funded with its whole budget (until advertisers
    /// sign up and pay) and print its id.
    CreateAd {
        #[arg(long)]
        title: String,
        /// The ad's country (ISO 3166-1 alpha-2 or alpha-3).
        #[arg(long)]
        country: String,
        /// The source video: a local file (copied into storage) or an https URL.
        #[arg(long)]
        video: String,
        /// What one approved screenshot earns, in dollars (e.g. 1.50).
        #[arg(long)]
        payout_usd: String,
        #[arg(long)]
        budget_usd: String,
        /// A category's name or id.
        #[arg(long)]
        category: Option<String>,
        #[arg(long)]
        description: Option<String>,
        /// Makes this many alike ads, each through the same path as one (benchmark seeding:
        /// benches/advertising_load.sh), printing only the last id.
        #[arg(long, default_value_t = 1, hide = true)]
        count: u32,
    },
    /// Add an administrator of the advertising platform and print its id.
    CreateAdsAdmin {
        #[arg(long)]
        email: String,
        /// admin (everything), moderator (users, ads, screenshots, support) or finance
        /// (finance, analytics).
        #[arg(long)]
        role: String,
        /// At least 10 characters.
        #[arg(long)]
        password: String,
    },
}

pub fn commands(admin: clap::Command) -> clap::Command {
    Command::augment_subcommands(admin)
}

pub fn run<'a>(
    admin: &'a clap::ArgMatches,
    ctx: AdminContext<'a>,
    providers: &'a Providers,
) -> Option<AdminRun<'a>> {
    let command = Command::from_arg_matches(admin).ok()?;
    Some(Box::pin(async move {
        match command {
            Command::CreateAd {
                title,
                country,
                video,
                payout_usd,
                budget_usd,
                category,
                description,
                count,
            } => {
                let video_source = ad_source(providers, &video).await?;
                let mut last = None;
                for i in 0..count.max(1) {
                    // Each its own moment, so a seeded list has a newest-first order to keep.
                    let at = ctx.now + chrono::Duration::microseconds(i.into());
                    let new = NewAd {
                        title: title.clone(),
                        description: description.clone(),
                        country: country.clone(),
                        video_source: video_source.clone(),
                        payout_usd: payout_usd.clone(),
                        budget_usd: budget_usd.clone(),
                        category: category.clone(),
                    };
                    last = Some(create_approved(ctx.db, at, new).await?.id);
                }
                if let Some(id) = last {
                    println!("ad_id: {id}");
                }
            }
            Command::CreateAdsAdmin {
                email,
                role,
                password,
            } => {
                let a = accounts::create(ctx.db, ctx.now, &email, &role, &password).await?;
                println!("admin_id: {}", a.id);
            }
        }
        Ok(())
    }))
}

/// Where an operator's `--video` lives: an https URL as given (fetched when a video is
/// made), or a local file, checked to be a video by ffprobe and copied into storage under
/// `videos/ads/`.
async fn ad_source(
    providers: &Providers,
    video: &str,
) -> Result<String, Box<dyn std::error::Error>> {
    let video = video.trim();
    if video.contains("://") {
        let url = url::Url::parse(video)?;
        if url.scheme() == "https" && url.host_str().is_some() {
            return Ok(video.to_owned());
        }
        return Err(format!("--video must be an https URL or a local file, not {video:?}").into());
    }
    let path = Path::new(video);
    if !path.is_file() {
        return Err(format!("--video {video:?}: no such file").into());
    }
    providers.video.probe(path).await?;
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .filter(|e| !e.is_empty() && e.len() <= 5 && e.bytes().all(|b| b.is_ascii_alphanumeric()))
        .unwrap_or("mp4")
        .to_ascii_lowercase();
    let key = StorageKey::parse(&format!(
        "videos/ads/{}.{ext}",
        uuid::Uuid::new_v4().simple()
    ))?;
    providers.storage.put_file(&key, path).await?;
    Ok(key.as_str().to_owned())
}
