use clap::{Parser, Subcommand};
use std::path::PathBuf;
use switchboard::core::jobs::{self, JobId, Status};
use switchboard::core::telemetry;
use switchboard::settings::Settings;
use switchboard::startup::{self, Application};

#[derive(Parser)]
#[command(name = "switchboard", version, about = "Runs the Switchboard services")]
struct Cli {
    /// Configuration file (defaults to ./config.toml; missing means built-in defaults).
    #[arg(long, global = true, default_value = "config.toml")]
    config: PathBuf,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Start every enabled service, each on its own listener.
    Serve {
        /// Only these services (comma separated, e.g. identity,messaging).
        #[arg(long, value_delimiter = ',')]
        only: Option<Vec<String>>,
    },
    /// Run database migrations and exit.
    Migrate,
    /// Operator commands.
    Admin {
        #[command(subcommand)]
        command: AdminCommand,
    },
    /// The background job queue.
    Jobs {
        #[command(subcommand)]
        command: JobsCommand,
    },
    /// Copy the database (a consistent snapshot, while the server runs), the marketplace
    /// sandbox's SQLite database and the local media directory into a new directory.
    Backup {
        #[arg(long)]
        to: PathBuf,
    },
    /// Put a backup into the configured database and media directory (stop the server
    /// first). Places that hold data are refused unless --force.
    Restore {
        #[arg(long)]
        from: PathBuf,
        #[arg(long)]
        force: bool,
    },
}

#[derive(Subcommand)]
enum JobsCommand {
    /// Jobs as a table, most recently changed first.
    List {
        #[arg(long)]
        topic: Option<String>,
        /// queued, running, done or dead.
        #[arg(long)]
        status: Option<Status>,
        #[arg(long, default_value_t = 50)]
        limit: u64,
    },
    /// Send a dead job back to the queue with fresh attempts, or make a queued one due now.
    Retry { id: JobId },
}

#[derive(Subcommand)]
enum AdminCommand {
    /// Create a messaging workspace and print its API key (shown once; stored hashed).
    CreateWorkspace {
        #[arg(long)]
        name: String,
        /// Starting balance in credits (at most two decimals).
        #[arg(long, default_value = "0")]
        credits: String,
        /// credit.low threshold in credits (default from config).
        #[arg(long)]
        low_credit_threshold: Option<String>,
        /// Carrier number (E.164) whose inbound SMS belong to this workspace.
        #[arg(long)]
        phone_number: Option<String>,
        /// Default email sender display name (default: the workspace name).
        #[arg(long)]
        sender_name: Option<String>,
    },
    /// Add credits to a messaging workspace.
    AddCredits {
        #[arg(long)]
        workspace: uuid::Uuid,
        #[arg(long)]
        credits: String,
    },
    /// Make the marketplace account of a phone a verified administrator (created when
    /// missing; running it again only sets the password) and print its user id.
    CreateMarketplaceAdmin {
        /// E.164 phone number.
        #[arg(long)]
        phone: String,
        /// At least 6 characters.
        #[arg(long)]
        password: String,
        #[arg(long)]
        name: Option<String>,
    },
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

/// A failure prints one sentence (each error's `Display` says what to change) and exits 1;
/// `Debug` dumps are for logs, not for an operator at a prompt.
#[actix_web::main]
async fn main() -> std::process::ExitCode {
    switchboard::core::tls::install_crypto_provider();
    let cli = Cli::parse();
    // Logging is set up from `[telemetry]` before the rest is read, so that reading it can
    // warn.
    let telemetry = telemetry::init(&Settings::telemetry(&cli.config));
    let done = run(cli).await;
    telemetry.finish().await;
    match done {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("switchboard: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}

async fn run(cli: Cli) -> anyhow_free::Result {
    let mut settings = Settings::load(&cli.config)?;
    match cli.command {
        Command::Serve { only } => {
            if let Some(only) = only {
                settings.restrict_to(&only);
            }
            let app = Application::build(settings).await?;
            let db = app.context().db.clone();
            app.run_until_stopped().await?;
            // Background work (dispatcher, webhook actors) returns its connections before
            // the runtime goes away, so nothing is dropped mid-query at exit.
            if let Err(e) = db.close().await {
                tracing::warn!(error = %e, "closing the database pool failed");
            }
        }
        Command::Migrate => {
            startup::migrate(&settings).await?;
            tracing::info!("migrations applied");
        }
        Command::Admin { command } => admin(&settings, command).await?,
        Command::Jobs { command } => jobs_command(&settings, command).await?,
        Command::Backup { to } => {
            let made = switchboard::backup::backup(&settings, &to).await?;
            println!(
                "backup: {} ({} database, made {})",
                to.display(),
                made.database,
                made.created_at
            );
        }
        Command::Restore { from, force } => {
            let made = switchboard::backup::restore(&settings, &from, force).await?;
            println!("restored: {} (made {})", from.display(), made.created_at);
        }
    }
    Ok(())
}

async fn jobs_command(settings: &Settings, command: JobsCommand) -> anyhow_free::Result {
    let db = startup::migrate(settings).await?;
    match command {
        JobsCommand::List {
            topic,
            status,
            limit,
        } => {
            let filter = jobs::ListFilter {
                topic,
                status,
                limit,
            };
            println!("{}", jobs::table(&jobs::list(&db, &filter).await?));
        }
        JobsCommand::Retry { id } => match jobs::retry(&db, id, chrono::Utc::now()).await? {
            jobs::Retried::Queued => println!("job {id}: queued, due now"),
            jobs::Retried::Refused(status) => {
                return Err(
                    format!("job {id} is {status}; only dead or queued jobs are retried").into(),
                )
            }
            jobs::Retried::NotFound => return Err(format!("no job {id}").into()),
        },
    }
    Ok(())
}

async fn admin(settings: &Settings, command: AdminCommand) -> anyhow_free::Result {
    use switchboard::services::messaging::{add_credits, create_workspace, NewWorkspace};
    let db = startup::migrate(settings).await?;
    let now = chrono::Utc::now();
    match command {
        AdminCommand::CreateWorkspace {
            name,
            credits,
            low_credit_threshold,
            phone_number,
            sender_name,
        } => {
            let created = create_workspace(
                &db,
                now,
                settings.services.messaging.default_low_credit_threshold,
                NewWorkspace {
                    name,
                    credits,
                    low_credit_threshold,
                    phone_number,
                    sender_name,
                },
            )
            .await?;
            // The only place the key ever appears; scripts read the last line.
            println!("workspace_id: {}", created.workspace.id);
            println!("api_key: {}", created.api_key);
        }
        AdminCommand::AddCredits { workspace, credits } => {
            let balance = add_credits(&db, now, workspace, &credits).await?;
            println!(
                "credits_balance: {}",
                switchboard::services::messaging::credits_text(balance)
            );
        }
        AdminCommand::CreateMarketplaceAdmin {
            phone,
            password,
            name,
        } => {
            let id = switchboard::services::marketplace::create_admin(
                &db,
                now,
                &phone,
                &password,
                name.as_deref(),
            )
            .await?;
            println!("user_id: {id}");
        }
        AdminCommand::CreateAd {
            title,
            country,
            video,
            payout_usd,
            budget_usd,
            category,
            description,
            count,
        } => {
            use switchboard::services::advertising::ads::create::{create_approved, NewAd};
            let video_source =
                switchboard::services::advertising::media::ad_source(settings, &video).await?;
            let mut last = None;
            for i in 0..count.max(1) {
                // Each its own moment, so a seeded list has a newest-first order to keep.
                let at = now + chrono::Duration::microseconds(i.into());
                let ad = create_approved(
                    &db,
                    at,
                    NewAd {
                        title: title.clone(),
                        description: description.clone(),
                        country: country.clone(),
                        video_source: video_source.clone(),
                        payout_usd: payout_usd.clone(),
                        budget_usd: budget_usd.clone(),
                        category: category.clone(),
                    },
                )
                .await?;
                last = Some(ad.id);
            }
            if let Some(id) = last {
                println!("ad_id: {id}");
            }
        }
        AdminCommand::CreateAdsAdmin {
            email,
            role,
            password,
        } => {
            let a = switchboard::services::advertising::staff::accounts::create(
                &db, now, &email, &role, &password,
            )
            .await?;
            println!("admin_id: {}", a.id);
        }
    }
    Ok(())
}

mod anyhow_free {
    pub type Result = std::result::Result<(), Box<dyn std::error::Error>>;
}
