use clap::{ArgMatches, CommandFactory, FromArgMatches, Parser, Subcommand};
use std::path::PathBuf;
use std::sync::Arc;
use switchboard::core::admin::AdminContext;
use switchboard::core::clock::SystemClock;
use switchboard::core::jobs::{self, JobId, Status};
use switchboard::core::telemetry;
use switchboard::services::ServicesSettings;
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
    /// Operator commands: each service adds its own (its `cli.rs`).
    #[command(subcommand_required = true, arg_required_else_help = true)]
    Admin,
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

/// A failure prints one sentence (each error's `Display` says what to change) and exits 1;
/// `Debug` dumps are for logs, not for an operator at a prompt.
#[actix_web::main]
async fn main() -> std::process::ExitCode {
    switchboard::core::tls::install_crypto_provider();
    let matches = Cli::command()
        .mut_subcommand("admin", ServicesSettings::admin_commands)
        .get_matches();
    let cli = match Cli::from_arg_matches(&matches) {
        Ok(cli) => cli,
        Err(e) => e.exit(),
    };
    // Logging is set up from `[telemetry]` before the rest is read, so that reading it can
    // warn.
    let telemetry = telemetry::init(&Settings::telemetry(&cli.config));
    let done = run(cli, &matches).await;
    telemetry.finish().await;
    match done {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("switchboard: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}

async fn run(cli: Cli, matches: &ArgMatches) -> anyhow_free::Result {
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
        Command::Admin => match matches.subcommand_matches("admin") {
            Some(admin) => run_admin(&settings, admin).await?,
            None => return Err("admin: name a command (see --help)".into()),
        },
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

/// Runs the operator command of the service that has it.
async fn run_admin(settings: &Settings, admin: &ArgMatches) -> anyhow_free::Result {
    let db = startup::migrate(settings).await?;
    let providers = startup::providers(settings, Arc::new(SystemClock))?;
    let ctx = AdminContext {
        db: &db,
        now: chrono::Utc::now(),
    };
    for service in settings.services.registered() {
        if let Some(run) = service.run_admin(admin, ctx, &providers) {
            return run.await;
        }
    }
    Err("no service has this command".into())
}

mod anyhow_free {
    pub type Result = std::result::Result<(), Box<dyn std::error::Error>>;
}
