#compdef verity
# zsh completion for verity. Generated from the command tree by `verity completion zsh`; do not edit.
# Install: verity completion zsh > "${fpath[1]}/_verity"   (then restart zsh)
#      or: source <(verity completion zsh)

_verity_next() {
  REPLY=
  case "$1|$2" in
    '|verify') REPLY='verify' ;;
    '|corpus') REPLY='corpus' ;;
    '|data') REPLY='data' ;;
    '|media') REPLY='media' ;;
    '|keys') REPLY='keys' ;;
    '|config') REPLY='config' ;;
    '|completion') REPLY='completion' ;;
    '|serve') REPLY='serve' ;;
    '|worker') REPLY='worker' ;;
    '|admin') REPLY='admin' ;;
    '|webhooks') REPLY='webhooks' ;;
    '|listen') REPLY='listen' ;;
    '|models') REPLY='models' ;;
    '|report') REPLY='report' ;;
    '|batches') REPLY='batches' ;;
    '|help') REPLY='help' ;;
    'verify|claim') REPLY='verify claim' ;;
    'verify|business') REPLY='verify business' ;;
    'verify|media') REPLY='verify media' ;;
    'verify|document') REPLY='verify document' ;;
    'verify|batch') REPLY='verify batch' ;;
    'verify|help') REPLY='verify help' ;;
    'corpus|add') REPLY='corpus add' ;;
    'corpus|list'|'corpus|ls') REPLY='corpus list' ;;
    'corpus|remove'|'corpus|rm') REPLY='corpus remove' ;;
    'corpus|help') REPLY='corpus help' ;;
    'data|import') REPLY='data import' ;;
    'data|help') REPLY='data help' ;;
    'media|index') REPLY='media index' ;;
    'media|help') REPLY='media help' ;;
    'media index|add') REPLY='media index add' ;;
    'media index|list'|'media index|ls') REPLY='media index list' ;;
    'media index|help') REPLY='media index help' ;;
    'keys|add') REPLY='keys add' ;;
    'keys|list'|'keys|ls') REPLY='keys list' ;;
    'keys|use') REPLY='keys use' ;;
    'keys|remove'|'keys|rm') REPLY='keys remove' ;;
    'keys|help') REPLY='keys help' ;;
    'config|get') REPLY='config get' ;;
    'config|set') REPLY='config set' ;;
    'config|unset') REPLY='config unset' ;;
    'config|list'|'config|ls') REPLY='config list' ;;
    'config|path') REPLY='config path' ;;
    'config|help') REPLY='config help' ;;
    'admin|keys') REPLY='admin keys' ;;
    'admin|migrate') REPLY='admin migrate' ;;
    'admin|usage') REPLY='admin usage' ;;
    'admin|help') REPLY='admin help' ;;
    'admin keys|create') REPLY='admin keys create' ;;
    'admin keys|list'|'admin keys|ls') REPLY='admin keys list' ;;
    'admin keys|revoke') REPLY='admin keys revoke' ;;
    'admin keys|help') REPLY='admin keys help' ;;
    'webhooks|add') REPLY='webhooks add' ;;
    'webhooks|list'|'webhooks|ls') REPLY='webhooks list' ;;
    'webhooks|remove'|'webhooks|rm') REPLY='webhooks remove' ;;
    'webhooks|test') REPLY='webhooks test' ;;
    'webhooks|deliveries') REPLY='webhooks deliveries' ;;
    'webhooks|replay') REPLY='webhooks replay' ;;
    'webhooks|rotate-secret') REPLY='webhooks rotate-secret' ;;
    'webhooks|deliver') REPLY='webhooks deliver' ;;
    'webhooks|trigger') REPLY='webhooks trigger' ;;
    'webhooks|help') REPLY='webhooks help' ;;
    'models|pull') REPLY='models pull' ;;
    'models|list'|'models|ls') REPLY='models list' ;;
    'models|help') REPLY='models help' ;;
    'batches|list'|'batches|ls') REPLY='batches list' ;;
    'batches|get') REPLY='batches get' ;;
    'batches|results') REPLY='batches results' ;;
    'batches|cancel') REPLY='batches cancel' ;;
    'batches|help') REPLY='batches help' ;;
  esac
}

_verity_data() {
  case "$1" in
    '')
      subs=('verify:verify a claim, a company, an image/video or a document' 'corpus:your own evidence corpora for claim checks (`--sources local`)' 'data:offline bulk data for business verification' 'media:manage the known-media index used for provenance' 'keys:store, list, choose and remove API keys (kept in the config file, mode 0600)' 'config:read and change settings in the config file (dotted names: llm.base_url, profiles.staging.base_url, …)' 'completion:print the shell completion script for bash, zsh or fish' 'serve:run the verification service over HTTP: /v1/verify/*, /v1/openapi.json, /healthz' 'worker:deliver webhooks from a PostgreSQL outbox shared with `verity serve` processes (no HTTP)' 'admin:manage the service'\''s accounts and API keys (what a hosted dashboard would do), on the server'\''s database' 'webhooks:register webhooks and inspect, test, replay and deliver their events (remote service, or local in embedded mode)' 'listen:receive webhook events on loopback: check signatures, print each event, optionally forward to your app' 'models:local models verity runs in-process (the claim NLI stance model)' 'report:write a self-contained HTML report from a saved --json result (offline, printable)' 'batches:server batches: list, inspect, download results of, and cancel batches (needs --remote)' 'help:show the help of a command: verity help verify claim')
      opts=('--version:print the version' '-V:print the version' '--json:print one JSON document (the result, or the error body) on stdout' '--remote:use the verity service at URL instead of the embedded engine (env VERITY_BASE_URL)' '--local:force the embedded engine even when a profile or VERITY_BASE_URL names a service' '--key:API key: a stored key name, "-" to read it from stdin, or the key itself' '--key-file:read the API key from a file' '--test:sandbox: simulated, deterministic data and no network (or a test key in remote mode)' '--live:real sources (or a live key in remote mode)' '--profile:config profile to use (env VERITY_PROFILE)' '--quiet:print only the result; no progress or notes' '-q:print only the result; no progress or notes' '--verbose:more detail on stderr' '-v:more detail on stderr' '--no-color:no colour (also NO_COLOR, TERM=dumb, or when not a terminal)' '--help:display help for command' '-h:display help for command')
      vals=('--remote=@any' '--key=@dyn:keys' '--key-file=@file' '--profile=@dyn:profiles')
      arg='@none' ;;
    'verify')
      subs=('claim:check a statement against encyclopedic, fact-check, scholarly, news and web sources' 'business:check a company against company registries' 'media:check an image or video: C2PA, metadata, forensics, deepfake signals, provenance' 'document:check a PDF, DOCX, image or text: AI generation, manipulation, metadata, signatures' 'batch:verify many claims, companies, images or documents in one process: JSONL, CSV or a folder' 'help:display help for command')
      opts=('--help:display help for command' '-h:display help for command' '--json:print one JSON document (the result, or the error body) on stdout' '--remote:use the verity service at URL instead of the embedded engine (env VERITY_BASE_URL)' '--local:force the embedded engine even when a profile or VERITY_BASE_URL names a service' '--key:API key: a stored key name, "-" to read it from stdin, or the key itself' '--key-file:read the API key from a file' '--test:sandbox: simulated, deterministic data and no network (or a test key in remote mode)' '--live:real sources (or a live key in remote mode)' '--profile:config profile to use (env VERITY_PROFILE)' '--quiet:print only the result; no progress or notes' '-q:print only the result; no progress or notes' '--verbose:more detail on stderr' '-v:more detail on stderr' '--no-color:no colour (also NO_COLOR, TERM=dumb, or when not a terminal)')
      vals=('--remote=@any' '--key=@dyn:keys' '--key-file=@file' '--profile=@dyn:profiles')
      arg='@none' ;;
    'verify claim')
      subs=()
      opts=('--claim:the claim, as a flag instead of the argument' '--sources:comma-separated: web, wikipedia, google_fact_check, semantic_scholar, gdelt, local (default: all)' '--language:ISO 639-1 language of the claim and sources' '--max-evidence:evidence items to return, 1 to 20' '--fail-on:exit 3 when the verdict is any of (comma-separated): true, false, unverifiable, conflicting' '--min-trust:exit 3 when trust_score, the chance the claim is true, is below x (0 to 1)' '--report:also write a self-contained HTML report to FILE (offline, printable)' '--help:display help for command' '-h:display help for command' '--json:print one JSON document (the result, or the error body) on stdout' '--remote:use the verity service at URL instead of the embedded engine (env VERITY_BASE_URL)' '--local:force the embedded engine even when a profile or VERITY_BASE_URL names a service' '--key:API key: a stored key name, "-" to read it from stdin, or the key itself' '--key-file:read the API key from a file' '--test:sandbox: simulated, deterministic data and no network (or a test key in remote mode)' '--live:real sources (or a live key in remote mode)' '--profile:config profile to use (env VERITY_PROFILE)' '--quiet:print only the result; no progress or notes' '-q:print only the result; no progress or notes' '--verbose:more detail on stderr' '-v:more detail on stderr' '--no-color:no colour (also NO_COLOR, TERM=dumb, or when not a terminal)')
      vals=('--claim=@any' '--sources=@dyn:sources:claim' '--language=@any' '--max-evidence=@any' '--fail-on=@dyn:fail-on:claim' '--min-trust=@any' '--report=@file' '--remote=@any' '--key=@dyn:keys' '--key-file=@file' '--profile=@dyn:profiles')
      arg='@any' ;;
    'verify business')
      subs=()
      opts=('--company-name:the name, as a flag instead of the argument' '--jurisdiction:ISO 3166-2 style, lowercase: gb, us_de, …' '--registration-number:company registration number, if known' '--officers:include directors/officers' '--filings:include recent regulatory filings' '--sources:comma-separated: companies_house, sec_edgar, gleif, opencorporates (default: all available)' '--fail-on:exit 3 when the status is any of (comma-separated): active, dissolved, liquidation, inactive' '--min-trust:exit 3 when trust_score is below x (0 to 1)' '--report:also write a self-contained HTML report to FILE (offline, printable)' '--help:display help for command' '-h:display help for command' '--json:print one JSON document (the result, or the error body) on stdout' '--remote:use the verity service at URL instead of the embedded engine (env VERITY_BASE_URL)' '--local:force the embedded engine even when a profile or VERITY_BASE_URL names a service' '--key:API key: a stored key name, "-" to read it from stdin, or the key itself' '--key-file:read the API key from a file' '--test:sandbox: simulated, deterministic data and no network (or a test key in remote mode)' '--live:real sources (or a live key in remote mode)' '--profile:config profile to use (env VERITY_PROFILE)' '--quiet:print only the result; no progress or notes' '-q:print only the result; no progress or notes' '--verbose:more detail on stderr' '-v:more detail on stderr' '--no-color:no colour (also NO_COLOR, TERM=dumb, or when not a terminal)')
      vals=('--company-name=@any' '--jurisdiction=@any' '--registration-number=@any' '--sources=@dyn:sources:business' '--fail-on=@dyn:fail-on:business' '--min-trust=@any' '--report=@file' '--remote=@any' '--key=@dyn:keys' '--key-file=@file' '--profile=@dyn:profiles')
      arg='@any' ;;
    'verify media')
      subs=()
      opts=('--url:URL of the image or video' '--file:path of the image or video (sent base64-encoded)' '--check-deepfakes:run deepfake detection (default)' '--no-check-deepfakes:skip deepfake detection' '--check-provenance:trace provenance (default)' '--no-check-provenance:skip provenance tracing' '--check-watermarks:extract and verify C2PA watermarks (default)' '--no-check-watermarks:skip C2PA watermarks' '--heatmap:also write the forensic overlay alone as a PNG (heat map and marked regions)' '--fail-on:exit 3 when the authenticity is any of (comma-separated): authentic, likely_authentic, suspicious, manipulated' '--min-trust:exit 3 when trust_score is below x (0 to 1)' '--report:also write a self-contained HTML report to FILE (offline, printable)' '--help:display help for command' '-h:display help for command' '--json:print one JSON document (the result, or the error body) on stdout' '--remote:use the verity service at URL instead of the embedded engine (env VERITY_BASE_URL)' '--local:force the embedded engine even when a profile or VERITY_BASE_URL names a service' '--key:API key: a stored key name, "-" to read it from stdin, or the key itself' '--key-file:read the API key from a file' '--test:sandbox: simulated, deterministic data and no network (or a test key in remote mode)' '--live:real sources (or a live key in remote mode)' '--profile:config profile to use (env VERITY_PROFILE)' '--quiet:print only the result; no progress or notes' '-q:print only the result; no progress or notes' '--verbose:more detail on stderr' '-v:more detail on stderr' '--no-color:no colour (also NO_COLOR, TERM=dumb, or when not a terminal)')
      vals=('--url=@any' '--file=@file' '--heatmap=@file' '--fail-on=@dyn:fail-on:media' '--min-trust=@any' '--report=@file' '--remote=@any' '--key=@dyn:keys' '--key-file=@file' '--profile=@dyn:profiles')
      arg='@file' ;;
    'verify document')
      subs=()
      opts=('--source:how to read the input' '--content:the content itself (raw text, a URL, or base64 with --source upload)' '--mime-type:MIME type hint, e.g. application/pdf' '--check-deepfakes:run deepfake/entropy analysis (default)' '--no-check-deepfakes:skip deepfake/entropy analysis' '--check-watermarks:detect C2PA and other watermarks (default)' '--no-check-watermarks:skip watermark detection' '--fail-on:exit 3 when the flags is any of (comma-separated): ai_generated_text, image_manipulated, metadata_stripped, deepfake, inconsistent_timestamps, signature_forgery' '--min-trust:exit 3 when trust_score is below x (0 to 1)' '--report:also write a self-contained HTML report to FILE (offline, printable)' '--help:display help for command' '-h:display help for command' '--json:print one JSON document (the result, or the error body) on stdout' '--remote:use the verity service at URL instead of the embedded engine (env VERITY_BASE_URL)' '--local:force the embedded engine even when a profile or VERITY_BASE_URL names a service' '--key:API key: a stored key name, "-" to read it from stdin, or the key itself' '--key-file:read the API key from a file' '--test:sandbox: simulated, deterministic data and no network (or a test key in remote mode)' '--live:real sources (or a live key in remote mode)' '--profile:config profile to use (env VERITY_PROFILE)' '--quiet:print only the result; no progress or notes' '-q:print only the result; no progress or notes' '--verbose:more detail on stderr' '-v:more detail on stderr' '--no-color:no colour (also NO_COLOR, TERM=dumb, or when not a terminal)')
      vals=('--source=url,upload,raw' '--content=@any' '--mime-type=@any' '--fail-on=@dyn:fail-on:document' '--min-trust=@any' '--report=@file' '--remote=@any' '--key=@dyn:keys' '--key-file=@file' '--profile=@dyn:profiles')
      arg='@file' ;;
    'verify batch')
      subs=()
      opts=('--type:the type of items that carry no "type" field (required for a folder)' '--input-format:read the input as this format (default: from the extension or the first character)' '--concurrency:items in flight at once, 1 to 64 (default: 8 for claims and companies, the number of cores for files)' '--out:append each result to this NDJSON journal as it finishes' '--resume:skip the items that already succeeded in the --out journal' '--fail-on:exit 3 when any item'\''s verdict, status, authenticity or flags is any of these (comma-separated)' '--min-trust:exit 3 when any item'\''s trust_score is below x (0 to 1)' '--no-wait:remote mode: create the server batch(es), print their ids and leave (see `verity batches`)' '--per-item:remote mode: send one request per item instead of server batches' '--help:display help for command' '-h:display help for command' '--json:print one JSON document (the result, or the error body) on stdout' '--remote:use the verity service at URL instead of the embedded engine (env VERITY_BASE_URL)' '--local:force the embedded engine even when a profile or VERITY_BASE_URL names a service' '--key:API key: a stored key name, "-" to read it from stdin, or the key itself' '--key-file:read the API key from a file' '--test:sandbox: simulated, deterministic data and no network (or a test key in remote mode)' '--live:real sources (or a live key in remote mode)' '--profile:config profile to use (env VERITY_PROFILE)' '--quiet:print only the result; no progress or notes' '-q:print only the result; no progress or notes' '--verbose:more detail on stderr' '-v:more detail on stderr' '--no-color:no colour (also NO_COLOR, TERM=dumb, or when not a terminal)')
      vals=('--type=claim,business,media,document' '--input-format=jsonl,csv' '--concurrency=@any' '--out=@file' '--fail-on=@dyn:fail-on:batch' '--min-trust=@any' '--remote=@any' '--key=@dyn:keys' '--key-file=@file' '--profile=@dyn:profiles')
      arg='@file' ;;
    'verify help')
      subs=()
      opts=('--json:print one JSON document (the result, or the error body) on stdout' '--remote:use the verity service at URL instead of the embedded engine (env VERITY_BASE_URL)' '--local:force the embedded engine even when a profile or VERITY_BASE_URL names a service' '--key:API key: a stored key name, "-" to read it from stdin, or the key itself' '--key-file:read the API key from a file' '--test:sandbox: simulated, deterministic data and no network (or a test key in remote mode)' '--live:real sources (or a live key in remote mode)' '--profile:config profile to use (env VERITY_PROFILE)' '--quiet:print only the result; no progress or notes' '-q:print only the result; no progress or notes' '--verbose:more detail on stderr' '-v:more detail on stderr' '--no-color:no colour (also NO_COLOR, TERM=dumb, or when not a terminal)')
      vals=('--remote=@any' '--key=@dyn:keys' '--key-file=@file' '--profile=@dyn:profiles')
      arg='@any' ;;
    'corpus')
      subs=('add:import a .jsonl or .csv corpus (fields: text, url, source, published_at, authority)' 'list:the files the corpus holds rows from: rows and when imported' 'ls:the files the corpus holds rows from: rows and when imported' 'remove:delete the rows a file brought in (or --all); asks first on a terminal' 'rm:delete the rows a file brought in (or --all); asks first on a terminal' 'help:display help for command')
      opts=('--help:display help for command' '-h:display help for command' '--json:print one JSON document (the result, or the error body) on stdout' '--remote:use the verity service at URL instead of the embedded engine (env VERITY_BASE_URL)' '--local:force the embedded engine even when a profile or VERITY_BASE_URL names a service' '--key:API key: a stored key name, "-" to read it from stdin, or the key itself' '--key-file:read the API key from a file' '--test:sandbox: simulated, deterministic data and no network (or a test key in remote mode)' '--live:real sources (or a live key in remote mode)' '--profile:config profile to use (env VERITY_PROFILE)' '--quiet:print only the result; no progress or notes' '-q:print only the result; no progress or notes' '--verbose:more detail on stderr' '-v:more detail on stderr' '--no-color:no colour (also NO_COLOR, TERM=dumb, or when not a terminal)')
      vals=('--remote=@any' '--key=@dyn:keys' '--key-file=@file' '--profile=@dyn:profiles')
      arg='@none' ;;
    'corpus add')
      subs=()
      opts=('--help:display help for command' '-h:display help for command' '--json:print one JSON document (the result, or the error body) on stdout' '--remote:use the verity service at URL instead of the embedded engine (env VERITY_BASE_URL)' '--local:force the embedded engine even when a profile or VERITY_BASE_URL names a service' '--key:API key: a stored key name, "-" to read it from stdin, or the key itself' '--key-file:read the API key from a file' '--test:sandbox: simulated, deterministic data and no network (or a test key in remote mode)' '--live:real sources (or a live key in remote mode)' '--profile:config profile to use (env VERITY_PROFILE)' '--quiet:print only the result; no progress or notes' '-q:print only the result; no progress or notes' '--verbose:more detail on stderr' '-v:more detail on stderr' '--no-color:no colour (also NO_COLOR, TERM=dumb, or when not a terminal)')
      vals=('--remote=@any' '--key=@dyn:keys' '--key-file=@file' '--profile=@dyn:profiles')
      arg='@any' ;;
    'corpus list')
      subs=()
      opts=('--help:display help for command' '-h:display help for command' '--json:print one JSON document (the result, or the error body) on stdout' '--remote:use the verity service at URL instead of the embedded engine (env VERITY_BASE_URL)' '--local:force the embedded engine even when a profile or VERITY_BASE_URL names a service' '--key:API key: a stored key name, "-" to read it from stdin, or the key itself' '--key-file:read the API key from a file' '--test:sandbox: simulated, deterministic data and no network (or a test key in remote mode)' '--live:real sources (or a live key in remote mode)' '--profile:config profile to use (env VERITY_PROFILE)' '--quiet:print only the result; no progress or notes' '-q:print only the result; no progress or notes' '--verbose:more detail on stderr' '-v:more detail on stderr' '--no-color:no colour (also NO_COLOR, TERM=dumb, or when not a terminal)')
      vals=('--remote=@any' '--key=@dyn:keys' '--key-file=@file' '--profile=@dyn:profiles')
      arg='@none' ;;
    'corpus remove')
      subs=()
      opts=('--all:empty the whole corpus' '--yes:do not ask for confirmation on a terminal (needed in scripts)' '-y:do not ask for confirmation on a terminal (needed in scripts)' '--help:display help for command' '-h:display help for command' '--json:print one JSON document (the result, or the error body) on stdout' '--remote:use the verity service at URL instead of the embedded engine (env VERITY_BASE_URL)' '--local:force the embedded engine even when a profile or VERITY_BASE_URL names a service' '--key:API key: a stored key name, "-" to read it from stdin, or the key itself' '--key-file:read the API key from a file' '--test:sandbox: simulated, deterministic data and no network (or a test key in remote mode)' '--live:real sources (or a live key in remote mode)' '--profile:config profile to use (env VERITY_PROFILE)' '--quiet:print only the result; no progress or notes' '-q:print only the result; no progress or notes' '--verbose:more detail on stderr' '-v:more detail on stderr' '--no-color:no colour (also NO_COLOR, TERM=dumb, or when not a terminal)')
      vals=('--remote=@any' '--key=@dyn:keys' '--key-file=@file' '--profile=@dyn:profiles')
      arg='@file' ;;
    'corpus help')
      subs=()
      opts=('--json:print one JSON document (the result, or the error body) on stdout' '--remote:use the verity service at URL instead of the embedded engine (env VERITY_BASE_URL)' '--local:force the embedded engine even when a profile or VERITY_BASE_URL names a service' '--key:API key: a stored key name, "-" to read it from stdin, or the key itself' '--key-file:read the API key from a file' '--test:sandbox: simulated, deterministic data and no network (or a test key in remote mode)' '--live:real sources (or a live key in remote mode)' '--profile:config profile to use (env VERITY_PROFILE)' '--quiet:print only the result; no progress or notes' '-q:print only the result; no progress or notes' '--verbose:more detail on stderr' '-v:more detail on stderr' '--no-color:no colour (also NO_COLOR, TERM=dumb, or when not a terminal)')
      vals=('--remote=@any' '--key=@dyn:keys' '--key-file=@file' '--profile=@dyn:profiles')
      arg='@any' ;;
    'data')
      subs=('import:import a registry bulk file into the embedded store (streaming; safe to re-run)' 'help:display help for command')
      opts=('--help:display help for command' '-h:display help for command' '--json:print one JSON document (the result, or the error body) on stdout' '--remote:use the verity service at URL instead of the embedded engine (env VERITY_BASE_URL)' '--local:force the embedded engine even when a profile or VERITY_BASE_URL names a service' '--key:API key: a stored key name, "-" to read it from stdin, or the key itself' '--key-file:read the API key from a file' '--test:sandbox: simulated, deterministic data and no network (or a test key in remote mode)' '--live:real sources (or a live key in remote mode)' '--profile:config profile to use (env VERITY_PROFILE)' '--quiet:print only the result; no progress or notes' '-q:print only the result; no progress or notes' '--verbose:more detail on stderr' '-v:more detail on stderr' '--no-color:no colour (also NO_COLOR, TERM=dumb, or when not a terminal)')
      vals=('--remote=@any' '--key=@dyn:keys' '--key-file=@file' '--profile=@dyn:profiles')
      arg='@none' ;;
    'data import')
      subs=()
      opts=('--replace:the file is a complete snapshot: drop this dataset'\''s rows it does not contain' '--help:display help for command' '-h:display help for command' '--json:print one JSON document (the result, or the error body) on stdout' '--remote:use the verity service at URL instead of the embedded engine (env VERITY_BASE_URL)' '--local:force the embedded engine even when a profile or VERITY_BASE_URL names a service' '--key:API key: a stored key name, "-" to read it from stdin, or the key itself' '--key-file:read the API key from a file' '--test:sandbox: simulated, deterministic data and no network (or a test key in remote mode)' '--live:real sources (or a live key in remote mode)' '--profile:config profile to use (env VERITY_PROFILE)' '--quiet:print only the result; no progress or notes' '-q:print only the result; no progress or notes' '--verbose:more detail on stderr' '-v:more detail on stderr' '--no-color:no colour (also NO_COLOR, TERM=dumb, or when not a terminal)')
      vals=('--remote=@any' '--key=@dyn:keys' '--key-file=@file' '--profile=@dyn:profiles')
      arg='companies-house,gleif,sec-tickers' ;;
    'data help')
      subs=()
      opts=('--json:print one JSON document (the result, or the error body) on stdout' '--remote:use the verity service at URL instead of the embedded engine (env VERITY_BASE_URL)' '--local:force the embedded engine even when a profile or VERITY_BASE_URL names a service' '--key:API key: a stored key name, "-" to read it from stdin, or the key itself' '--key-file:read the API key from a file' '--test:sandbox: simulated, deterministic data and no network (or a test key in remote mode)' '--live:real sources (or a live key in remote mode)' '--profile:config profile to use (env VERITY_PROFILE)' '--quiet:print only the result; no progress or notes' '-q:print only the result; no progress or notes' '--verbose:more detail on stderr' '-v:more detail on stderr' '--no-color:no colour (also NO_COLOR, TERM=dumb, or when not a terminal)')
      vals=('--remote=@any' '--key=@dyn:keys' '--key-file=@file' '--profile=@dyn:profiles')
      arg='@any' ;;
    'media')
      subs=('index:known appearances of images and videos (perceptual hashes)' 'help:display help for command')
      opts=('--help:display help for command' '-h:display help for command' '--json:print one JSON document (the result, or the error body) on stdout' '--remote:use the verity service at URL instead of the embedded engine (env VERITY_BASE_URL)' '--local:force the embedded engine even when a profile or VERITY_BASE_URL names a service' '--key:API key: a stored key name, "-" to read it from stdin, or the key itself' '--key-file:read the API key from a file' '--test:sandbox: simulated, deterministic data and no network (or a test key in remote mode)' '--live:real sources (or a live key in remote mode)' '--profile:config profile to use (env VERITY_PROFILE)' '--quiet:print only the result; no progress or notes' '-q:print only the result; no progress or notes' '--verbose:more detail on stderr' '-v:more detail on stderr' '--no-color:no colour (also NO_COLOR, TERM=dumb, or when not a terminal)')
      vals=('--remote=@any' '--key=@dyn:keys' '--key-file=@file' '--profile=@dyn:profiles')
      arg='@none' ;;
    'media index')
      subs=('add:record where and when files were seen; near-duplicates of them will be traced' 'list:list the index, earliest first' 'ls:list the index, earliest first' 'help:display help for command')
      opts=('--help:display help for command' '-h:display help for command' '--json:print one JSON document (the result, or the error body) on stdout' '--remote:use the verity service at URL instead of the embedded engine (env VERITY_BASE_URL)' '--local:force the embedded engine even when a profile or VERITY_BASE_URL names a service' '--key:API key: a stored key name, "-" to read it from stdin, or the key itself' '--key-file:read the API key from a file' '--test:sandbox: simulated, deterministic data and no network (or a test key in remote mode)' '--live:real sources (or a live key in remote mode)' '--profile:config profile to use (env VERITY_PROFILE)' '--quiet:print only the result; no progress or notes' '-q:print only the result; no progress or notes' '--verbose:more detail on stderr' '-v:more detail on stderr' '--no-color:no colour (also NO_COLOR, TERM=dumb, or when not a terminal)')
      vals=('--remote=@any' '--key=@dyn:keys' '--key-file=@file' '--profile=@dyn:profiles')
      arg='@none' ;;
    'media index add')
      subs=()
      opts=('--source:kind or name of the source, e.g. news, agency, social' '--url:where the media appeared' '--seen:when it was first seen (ISO date or timestamp)' '--help:display help for command' '-h:display help for command' '--json:print one JSON document (the result, or the error body) on stdout' '--remote:use the verity service at URL instead of the embedded engine (env VERITY_BASE_URL)' '--local:force the embedded engine even when a profile or VERITY_BASE_URL names a service' '--key:API key: a stored key name, "-" to read it from stdin, or the key itself' '--key-file:read the API key from a file' '--test:sandbox: simulated, deterministic data and no network (or a test key in remote mode)' '--live:real sources (or a live key in remote mode)' '--profile:config profile to use (env VERITY_PROFILE)' '--quiet:print only the result; no progress or notes' '-q:print only the result; no progress or notes' '--verbose:more detail on stderr' '-v:more detail on stderr' '--no-color:no colour (also NO_COLOR, TERM=dumb, or when not a terminal)')
      vals=('--source=@any' '--url=@any' '--seen=@any' '--remote=@any' '--key=@dyn:keys' '--key-file=@file' '--profile=@dyn:profiles')
      arg='@any' ;;
    'media index list')
      subs=()
      opts=('--help:display help for command' '-h:display help for command' '--json:print one JSON document (the result, or the error body) on stdout' '--remote:use the verity service at URL instead of the embedded engine (env VERITY_BASE_URL)' '--local:force the embedded engine even when a profile or VERITY_BASE_URL names a service' '--key:API key: a stored key name, "-" to read it from stdin, or the key itself' '--key-file:read the API key from a file' '--test:sandbox: simulated, deterministic data and no network (or a test key in remote mode)' '--live:real sources (or a live key in remote mode)' '--profile:config profile to use (env VERITY_PROFILE)' '--quiet:print only the result; no progress or notes' '-q:print only the result; no progress or notes' '--verbose:more detail on stderr' '-v:more detail on stderr' '--no-color:no colour (also NO_COLOR, TERM=dumb, or when not a terminal)')
      vals=('--remote=@any' '--key=@dyn:keys' '--key-file=@file' '--profile=@dyn:profiles')
      arg='@none' ;;
    'media index help')
      subs=()
      opts=('--json:print one JSON document (the result, or the error body) on stdout' '--remote:use the verity service at URL instead of the embedded engine (env VERITY_BASE_URL)' '--local:force the embedded engine even when a profile or VERITY_BASE_URL names a service' '--key:API key: a stored key name, "-" to read it from stdin, or the key itself' '--key-file:read the API key from a file' '--test:sandbox: simulated, deterministic data and no network (or a test key in remote mode)' '--live:real sources (or a live key in remote mode)' '--profile:config profile to use (env VERITY_PROFILE)' '--quiet:print only the result; no progress or notes' '-q:print only the result; no progress or notes' '--verbose:more detail on stderr' '-v:more detail on stderr' '--no-color:no colour (also NO_COLOR, TERM=dumb, or when not a terminal)')
      vals=('--remote=@any' '--key=@dyn:keys' '--key-file=@file' '--profile=@dyn:profiles')
      arg='@any' ;;
    'media help')
      subs=()
      opts=('--json:print one JSON document (the result, or the error body) on stdout' '--remote:use the verity service at URL instead of the embedded engine (env VERITY_BASE_URL)' '--local:force the embedded engine even when a profile or VERITY_BASE_URL names a service' '--key:API key: a stored key name, "-" to read it from stdin, or the key itself' '--key-file:read the API key from a file' '--test:sandbox: simulated, deterministic data and no network (or a test key in remote mode)' '--live:real sources (or a live key in remote mode)' '--profile:config profile to use (env VERITY_PROFILE)' '--quiet:print only the result; no progress or notes' '-q:print only the result; no progress or notes' '--verbose:more detail on stderr' '-v:more detail on stderr' '--no-color:no colour (also NO_COLOR, TERM=dumb, or when not a terminal)')
      vals=('--remote=@any' '--key=@dyn:keys' '--key-file=@file' '--profile=@dyn:profiles')
      arg='@any' ;;
    'keys')
      subs=('add:store an API key (prompted on a terminal; otherwise from --key -, stdin or --key-file)' 'list:list stored keys: name, environment, redacted key, last used, which one is active' 'ls:list stored keys: name, environment, redacted key, last used, which one is active' 'use:make a stored key the active profile'\''s key (--profile picks another profile)' 'remove:forget a stored key (profiles that used it are left without a key)' 'rm:forget a stored key (profiles that used it are left without a key)' 'help:display help for command')
      opts=('--help:display help for command' '-h:display help for command' '--json:print one JSON document (the result, or the error body) on stdout' '--remote:use the verity service at URL instead of the embedded engine (env VERITY_BASE_URL)' '--local:force the embedded engine even when a profile or VERITY_BASE_URL names a service' '--key:API key: a stored key name, "-" to read it from stdin, or the key itself' '--key-file:read the API key from a file' '--test:sandbox: simulated, deterministic data and no network (or a test key in remote mode)' '--live:real sources (or a live key in remote mode)' '--profile:config profile to use (env VERITY_PROFILE)' '--quiet:print only the result; no progress or notes' '-q:print only the result; no progress or notes' '--verbose:more detail on stderr' '-v:more detail on stderr' '--no-color:no colour (also NO_COLOR, TERM=dumb, or when not a terminal)')
      vals=('--remote=@any' '--key=@dyn:keys' '--key-file=@file' '--profile=@dyn:profiles')
      arg='@none' ;;
    'keys add')
      subs=()
      opts=('--force:replace a stored key of the same name' '--use:make it the active profile'\''s key (the first key stored always is)' '--help:display help for command' '-h:display help for command' '--json:print one JSON document (the result, or the error body) on stdout' '--remote:use the verity service at URL instead of the embedded engine (env VERITY_BASE_URL)' '--local:force the embedded engine even when a profile or VERITY_BASE_URL names a service' '--key:API key: a stored key name, "-" to read it from stdin, or the key itself' '--key-file:read the API key from a file' '--test:sandbox: simulated, deterministic data and no network (or a test key in remote mode)' '--live:real sources (or a live key in remote mode)' '--profile:config profile to use (env VERITY_PROFILE)' '--quiet:print only the result; no progress or notes' '-q:print only the result; no progress or notes' '--verbose:more detail on stderr' '-v:more detail on stderr' '--no-color:no colour (also NO_COLOR, TERM=dumb, or when not a terminal)')
      vals=('--remote=@any' '--key=@dyn:keys' '--key-file=@file' '--profile=@dyn:profiles')
      arg='@any' ;;
    'keys list')
      subs=()
      opts=('--help:display help for command' '-h:display help for command' '--json:print one JSON document (the result, or the error body) on stdout' '--remote:use the verity service at URL instead of the embedded engine (env VERITY_BASE_URL)' '--local:force the embedded engine even when a profile or VERITY_BASE_URL names a service' '--key:API key: a stored key name, "-" to read it from stdin, or the key itself' '--key-file:read the API key from a file' '--test:sandbox: simulated, deterministic data and no network (or a test key in remote mode)' '--live:real sources (or a live key in remote mode)' '--profile:config profile to use (env VERITY_PROFILE)' '--quiet:print only the result; no progress or notes' '-q:print only the result; no progress or notes' '--verbose:more detail on stderr' '-v:more detail on stderr' '--no-color:no colour (also NO_COLOR, TERM=dumb, or when not a terminal)')
      vals=('--remote=@any' '--key=@dyn:keys' '--key-file=@file' '--profile=@dyn:profiles')
      arg='@none' ;;
    'keys use')
      subs=()
      opts=('--help:display help for command' '-h:display help for command' '--json:print one JSON document (the result, or the error body) on stdout' '--remote:use the verity service at URL instead of the embedded engine (env VERITY_BASE_URL)' '--local:force the embedded engine even when a profile or VERITY_BASE_URL names a service' '--key:API key: a stored key name, "-" to read it from stdin, or the key itself' '--key-file:read the API key from a file' '--test:sandbox: simulated, deterministic data and no network (or a test key in remote mode)' '--live:real sources (or a live key in remote mode)' '--profile:config profile to use (env VERITY_PROFILE)' '--quiet:print only the result; no progress or notes' '-q:print only the result; no progress or notes' '--verbose:more detail on stderr' '-v:more detail on stderr' '--no-color:no colour (also NO_COLOR, TERM=dumb, or when not a terminal)')
      vals=('--remote=@any' '--key=@dyn:keys' '--key-file=@file' '--profile=@dyn:profiles')
      arg='@dyn:keys' ;;
    'keys remove')
      subs=()
      opts=('--yes:do not ask for confirmation on a terminal' '-y:do not ask for confirmation on a terminal' '--help:display help for command' '-h:display help for command' '--json:print one JSON document (the result, or the error body) on stdout' '--remote:use the verity service at URL instead of the embedded engine (env VERITY_BASE_URL)' '--local:force the embedded engine even when a profile or VERITY_BASE_URL names a service' '--key:API key: a stored key name, "-" to read it from stdin, or the key itself' '--key-file:read the API key from a file' '--test:sandbox: simulated, deterministic data and no network (or a test key in remote mode)' '--live:real sources (or a live key in remote mode)' '--profile:config profile to use (env VERITY_PROFILE)' '--quiet:print only the result; no progress or notes' '-q:print only the result; no progress or notes' '--verbose:more detail on stderr' '-v:more detail on stderr' '--no-color:no colour (also NO_COLOR, TERM=dumb, or when not a terminal)')
      vals=('--remote=@any' '--key=@dyn:keys' '--key-file=@file' '--profile=@dyn:profiles')
      arg='@dyn:keys' ;;
    'keys help')
      subs=()
      opts=('--json:print one JSON document (the result, or the error body) on stdout' '--remote:use the verity service at URL instead of the embedded engine (env VERITY_BASE_URL)' '--local:force the embedded engine even when a profile or VERITY_BASE_URL names a service' '--key:API key: a stored key name, "-" to read it from stdin, or the key itself' '--key-file:read the API key from a file' '--test:sandbox: simulated, deterministic data and no network (or a test key in remote mode)' '--live:real sources (or a live key in remote mode)' '--profile:config profile to use (env VERITY_PROFILE)' '--quiet:print only the result; no progress or notes' '-q:print only the result; no progress or notes' '--verbose:more detail on stderr' '-v:more detail on stderr' '--no-color:no colour (also NO_COLOR, TERM=dumb, or when not a terminal)')
      vals=('--remote=@any' '--key=@dyn:keys' '--key-file=@file' '--profile=@dyn:profiles')
      arg='@any' ;;
    'config')
      subs=('get:print one setting (secrets masked unless --show-secrets)' 'set:change one setting (checked before it is written; "-" reads the value from stdin)' 'unset:remove one setting' 'list:print every setting as key = value (secrets masked unless --show-secrets)' 'ls:print every setting as key = value (secrets masked unless --show-secrets)' 'path:print where the config file is (--json: also the data and cache folders)' 'help:display help for command')
      opts=('--help:display help for command' '-h:display help for command' '--json:print one JSON document (the result, or the error body) on stdout' '--remote:use the verity service at URL instead of the embedded engine (env VERITY_BASE_URL)' '--local:force the embedded engine even when a profile or VERITY_BASE_URL names a service' '--key:API key: a stored key name, "-" to read it from stdin, or the key itself' '--key-file:read the API key from a file' '--test:sandbox: simulated, deterministic data and no network (or a test key in remote mode)' '--live:real sources (or a live key in remote mode)' '--profile:config profile to use (env VERITY_PROFILE)' '--quiet:print only the result; no progress or notes' '-q:print only the result; no progress or notes' '--verbose:more detail on stderr' '-v:more detail on stderr' '--no-color:no colour (also NO_COLOR, TERM=dumb, or when not a terminal)')
      vals=('--remote=@any' '--key=@dyn:keys' '--key-file=@file' '--profile=@dyn:profiles')
      arg='@none' ;;
    'config get')
      subs=()
      opts=('--show-secrets:show source and LLM secrets in full (verity API keys are never shown whole)' '--help:display help for command' '-h:display help for command' '--json:print one JSON document (the result, or the error body) on stdout' '--remote:use the verity service at URL instead of the embedded engine (env VERITY_BASE_URL)' '--local:force the embedded engine even when a profile or VERITY_BASE_URL names a service' '--key:API key: a stored key name, "-" to read it from stdin, or the key itself' '--key-file:read the API key from a file' '--test:sandbox: simulated, deterministic data and no network (or a test key in remote mode)' '--live:real sources (or a live key in remote mode)' '--profile:config profile to use (env VERITY_PROFILE)' '--quiet:print only the result; no progress or notes' '-q:print only the result; no progress or notes' '--verbose:more detail on stderr' '-v:more detail on stderr' '--no-color:no colour (also NO_COLOR, TERM=dumb, or when not a terminal)')
      vals=('--remote=@any' '--key=@dyn:keys' '--key-file=@file' '--profile=@dyn:profiles')
      arg='@dyn:config-keys' ;;
    'config set')
      subs=()
      opts=('--help:display help for command' '-h:display help for command' '--json:print one JSON document (the result, or the error body) on stdout' '--remote:use the verity service at URL instead of the embedded engine (env VERITY_BASE_URL)' '--local:force the embedded engine even when a profile or VERITY_BASE_URL names a service' '--key:API key: a stored key name, "-" to read it from stdin, or the key itself' '--key-file:read the API key from a file' '--test:sandbox: simulated, deterministic data and no network (or a test key in remote mode)' '--live:real sources (or a live key in remote mode)' '--profile:config profile to use (env VERITY_PROFILE)' '--quiet:print only the result; no progress or notes' '-q:print only the result; no progress or notes' '--verbose:more detail on stderr' '-v:more detail on stderr' '--no-color:no colour (also NO_COLOR, TERM=dumb, or when not a terminal)')
      vals=('--remote=@any' '--key=@dyn:keys' '--key-file=@file' '--profile=@dyn:profiles')
      arg='@dyn:config-keys' ;;
    'config unset')
      subs=()
      opts=('--help:display help for command' '-h:display help for command' '--json:print one JSON document (the result, or the error body) on stdout' '--remote:use the verity service at URL instead of the embedded engine (env VERITY_BASE_URL)' '--local:force the embedded engine even when a profile or VERITY_BASE_URL names a service' '--key:API key: a stored key name, "-" to read it from stdin, or the key itself' '--key-file:read the API key from a file' '--test:sandbox: simulated, deterministic data and no network (or a test key in remote mode)' '--live:real sources (or a live key in remote mode)' '--profile:config profile to use (env VERITY_PROFILE)' '--quiet:print only the result; no progress or notes' '-q:print only the result; no progress or notes' '--verbose:more detail on stderr' '-v:more detail on stderr' '--no-color:no colour (also NO_COLOR, TERM=dumb, or when not a terminal)')
      vals=('--remote=@any' '--key=@dyn:keys' '--key-file=@file' '--profile=@dyn:profiles')
      arg='@dyn:config-keys' ;;
    'config list')
      subs=()
      opts=('--show-secrets:show source and LLM secrets in full (verity API keys are never shown whole)' '--help:display help for command' '-h:display help for command' '--json:print one JSON document (the result, or the error body) on stdout' '--remote:use the verity service at URL instead of the embedded engine (env VERITY_BASE_URL)' '--local:force the embedded engine even when a profile or VERITY_BASE_URL names a service' '--key:API key: a stored key name, "-" to read it from stdin, or the key itself' '--key-file:read the API key from a file' '--test:sandbox: simulated, deterministic data and no network (or a test key in remote mode)' '--live:real sources (or a live key in remote mode)' '--profile:config profile to use (env VERITY_PROFILE)' '--quiet:print only the result; no progress or notes' '-q:print only the result; no progress or notes' '--verbose:more detail on stderr' '-v:more detail on stderr' '--no-color:no colour (also NO_COLOR, TERM=dumb, or when not a terminal)')
      vals=('--remote=@any' '--key=@dyn:keys' '--key-file=@file' '--profile=@dyn:profiles')
      arg='@none' ;;
    'config path')
      subs=()
      opts=('--help:display help for command' '-h:display help for command' '--json:print one JSON document (the result, or the error body) on stdout' '--remote:use the verity service at URL instead of the embedded engine (env VERITY_BASE_URL)' '--local:force the embedded engine even when a profile or VERITY_BASE_URL names a service' '--key:API key: a stored key name, "-" to read it from stdin, or the key itself' '--key-file:read the API key from a file' '--test:sandbox: simulated, deterministic data and no network (or a test key in remote mode)' '--live:real sources (or a live key in remote mode)' '--profile:config profile to use (env VERITY_PROFILE)' '--quiet:print only the result; no progress or notes' '-q:print only the result; no progress or notes' '--verbose:more detail on stderr' '-v:more detail on stderr' '--no-color:no colour (also NO_COLOR, TERM=dumb, or when not a terminal)')
      vals=('--remote=@any' '--key=@dyn:keys' '--key-file=@file' '--profile=@dyn:profiles')
      arg='@none' ;;
    'config help')
      subs=()
      opts=('--json:print one JSON document (the result, or the error body) on stdout' '--remote:use the verity service at URL instead of the embedded engine (env VERITY_BASE_URL)' '--local:force the embedded engine even when a profile or VERITY_BASE_URL names a service' '--key:API key: a stored key name, "-" to read it from stdin, or the key itself' '--key-file:read the API key from a file' '--test:sandbox: simulated, deterministic data and no network (or a test key in remote mode)' '--live:real sources (or a live key in remote mode)' '--profile:config profile to use (env VERITY_PROFILE)' '--quiet:print only the result; no progress or notes' '-q:print only the result; no progress or notes' '--verbose:more detail on stderr' '-v:more detail on stderr' '--no-color:no colour (also NO_COLOR, TERM=dumb, or when not a terminal)')
      vals=('--remote=@any' '--key=@dyn:keys' '--key-file=@file' '--profile=@dyn:profiles')
      arg='@any' ;;
    'completion')
      subs=()
      opts=('--help:display help for command' '-h:display help for command' '--json:print one JSON document (the result, or the error body) on stdout' '--remote:use the verity service at URL instead of the embedded engine (env VERITY_BASE_URL)' '--local:force the embedded engine even when a profile or VERITY_BASE_URL names a service' '--key:API key: a stored key name, "-" to read it from stdin, or the key itself' '--key-file:read the API key from a file' '--test:sandbox: simulated, deterministic data and no network (or a test key in remote mode)' '--live:real sources (or a live key in remote mode)' '--profile:config profile to use (env VERITY_PROFILE)' '--quiet:print only the result; no progress or notes' '-q:print only the result; no progress or notes' '--verbose:more detail on stderr' '-v:more detail on stderr' '--no-color:no colour (also NO_COLOR, TERM=dumb, or when not a terminal)')
      vals=('--remote=@any' '--key=@dyn:keys' '--key-file=@file' '--profile=@dyn:profiles')
      arg='bash,zsh,fish' ;;
    'serve')
      subs=()
      opts=('--host:address to listen on' '--port:port to listen on (0 = any free port)' '--db:accounts, keys, usage and the webhook outbox: a SQLite file, or postgres://… for several processes (default: $VERITY_DATABASE_URL, else the embedded store)' '--pool:PostgreSQL only: connections in the pool' '--no-worker:PostgreSQL only: do not deliver webhooks in this process (run `verity worker` instead)' '--db-answer-timeout-ms:PostgreSQL only: a query that gets no byte back for this long fails (503) and its connection is replaced (a network cut)' '--allow-private-webhooks:development only: let webhooks target http, loopback and private addresses (logged at start-up)' '--analysis-workers:worker threads for media and document analysis (default: the cores)' '--analysis-budget-ms:wall-clock limit of one media or document analysis; past it the worker is ended and the request answered 422, not charged' '--analysis-memory-mb:heap limit of one analysis worker (MB); past it the request is answered 422' '--log-level:request log level (JSON lines on stderr)' '--help:display help for command' '-h:display help for command' '--json:print one JSON document (the result, or the error body) on stdout' '--remote:use the verity service at URL instead of the embedded engine (env VERITY_BASE_URL)' '--local:force the embedded engine even when a profile or VERITY_BASE_URL names a service' '--key:API key: a stored key name, "-" to read it from stdin, or the key itself' '--key-file:read the API key from a file' '--test:sandbox: simulated, deterministic data and no network (or a test key in remote mode)' '--live:real sources (or a live key in remote mode)' '--profile:config profile to use (env VERITY_PROFILE)' '--quiet:print only the result; no progress or notes' '-q:print only the result; no progress or notes' '--verbose:more detail on stderr' '-v:more detail on stderr' '--no-color:no colour (also NO_COLOR, TERM=dumb, or when not a terminal)')
      vals=('--host=@any' '--port=@any' '--db=@any' '--pool=@any' '--db-answer-timeout-ms=@any' '--analysis-workers=@any' '--analysis-budget-ms=@any' '--analysis-memory-mb=@any' '--log-level=fatal,error,warn,info,debug,trace,silent' '--remote=@any' '--key=@dyn:keys' '--key-file=@file' '--profile=@dyn:profiles')
      arg='@none' ;;
    'worker')
      subs=()
      opts=('--db:the postgres://… database (default: $VERITY_DATABASE_URL)' '--pool:connections in the pool' '--db-answer-timeout-ms:a query that gets no byte back for this long fails and its connection is replaced (a network cut)' '--allow-private-webhooks:development only: let webhooks target http, loopback and private addresses' '--help:display help for command' '-h:display help for command' '--json:print one JSON document (the result, or the error body) on stdout' '--remote:use the verity service at URL instead of the embedded engine (env VERITY_BASE_URL)' '--local:force the embedded engine even when a profile or VERITY_BASE_URL names a service' '--key:API key: a stored key name, "-" to read it from stdin, or the key itself' '--key-file:read the API key from a file' '--test:sandbox: simulated, deterministic data and no network (or a test key in remote mode)' '--live:real sources (or a live key in remote mode)' '--profile:config profile to use (env VERITY_PROFILE)' '--quiet:print only the result; no progress or notes' '-q:print only the result; no progress or notes' '--verbose:more detail on stderr' '-v:more detail on stderr' '--no-color:no colour (also NO_COLOR, TERM=dumb, or when not a terminal)')
      vals=('--db=@any' '--pool=@any' '--db-answer-timeout-ms=@any' '--remote=@any' '--key=@dyn:keys' '--key-file=@file' '--profile=@dyn:profiles')
      arg='@none' ;;
    'admin')
      subs=('keys:create, list and revoke API keys of `verity serve`' 'migrate:apply the server database'\''s schema migrations (serve and worker also apply them at start)' 'usage:credits used per account this month (or --period YYYY-MM) against the plan'\''s quota' 'help:display help for command')
      opts=('--help:display help for command' '-h:display help for command' '--json:print one JSON document (the result, or the error body) on stdout' '--remote:use the verity service at URL instead of the embedded engine (env VERITY_BASE_URL)' '--local:force the embedded engine even when a profile or VERITY_BASE_URL names a service' '--key:API key: a stored key name, "-" to read it from stdin, or the key itself' '--key-file:read the API key from a file' '--test:sandbox: simulated, deterministic data and no network (or a test key in remote mode)' '--live:real sources (or a live key in remote mode)' '--profile:config profile to use (env VERITY_PROFILE)' '--quiet:print only the result; no progress or notes' '-q:print only the result; no progress or notes' '--verbose:more detail on stderr' '-v:more detail on stderr' '--no-color:no colour (also NO_COLOR, TERM=dumb, or when not a terminal)')
      vals=('--remote=@any' '--key=@dyn:keys' '--key-file=@file' '--profile=@dyn:profiles')
      arg='@none' ;;
    'admin keys')
      subs=('create:create a key; prints the full key ONCE (only its SHA-256 hash is stored)' 'list:list keys: name, environment, prefix, account and plan, created, last used' 'ls:list keys: name, environment, prefix, account and plan, created, last used' 'revoke:revoke a key at once: its next request gets 401' 'help:display help for command')
      opts=('--help:display help for command' '-h:display help for command' '--json:print one JSON document (the result, or the error body) on stdout' '--remote:use the verity service at URL instead of the embedded engine (env VERITY_BASE_URL)' '--local:force the embedded engine even when a profile or VERITY_BASE_URL names a service' '--key:API key: a stored key name, "-" to read it from stdin, or the key itself' '--key-file:read the API key from a file' '--test:sandbox: simulated, deterministic data and no network (or a test key in remote mode)' '--live:real sources (or a live key in remote mode)' '--profile:config profile to use (env VERITY_PROFILE)' '--quiet:print only the result; no progress or notes' '-q:print only the result; no progress or notes' '--verbose:more detail on stderr' '-v:more detail on stderr' '--no-color:no colour (also NO_COLOR, TERM=dumb, or when not a terminal)')
      vals=('--remote=@any' '--key=@dyn:keys' '--key-file=@file' '--profile=@dyn:profiles')
      arg='@none' ;;
    'admin keys create')
      subs=()
      opts=('--name:a unique name for the key' '--env:live (real engine) or test (sandbox)' '--plan:the plan of a new account; for an existing one it must match unless --change-plan' '--change-plan:move an existing account (every key of it) to --plan' '--account:the account the key belongs to (created when new)' '--db:the server'\''s database: a SQLite file or postgres://… (default: $VERITY_DATABASE_URL, else the embedded store, as `verity serve`)' '--help:display help for command' '-h:display help for command' '--json:print one JSON document (the result, or the error body) on stdout' '--remote:use the verity service at URL instead of the embedded engine (env VERITY_BASE_URL)' '--local:force the embedded engine even when a profile or VERITY_BASE_URL names a service' '--key:API key: a stored key name, "-" to read it from stdin, or the key itself' '--key-file:read the API key from a file' '--test:sandbox: simulated, deterministic data and no network (or a test key in remote mode)' '--live:real sources (or a live key in remote mode)' '--profile:config profile to use (env VERITY_PROFILE)' '--quiet:print only the result; no progress or notes' '-q:print only the result; no progress or notes' '--verbose:more detail on stderr' '-v:more detail on stderr' '--no-color:no colour (also NO_COLOR, TERM=dumb, or when not a terminal)')
      vals=('--name=@any' '--env=live,test' '--plan=starter,pro,business,enterprise' '--account=@any' '--db=@any' '--remote=@any' '--key=@dyn:keys' '--key-file=@file' '--profile=@dyn:profiles')
      arg='@none' ;;
    'admin keys list')
      subs=()
      opts=('--all:include revoked keys' '--db:the server'\''s database: a SQLite file or postgres://… (default: $VERITY_DATABASE_URL, else the embedded store, as `verity serve`)' '--help:display help for command' '-h:display help for command' '--json:print one JSON document (the result, or the error body) on stdout' '--remote:use the verity service at URL instead of the embedded engine (env VERITY_BASE_URL)' '--local:force the embedded engine even when a profile or VERITY_BASE_URL names a service' '--key:API key: a stored key name, "-" to read it from stdin, or the key itself' '--key-file:read the API key from a file' '--test:sandbox: simulated, deterministic data and no network (or a test key in remote mode)' '--live:real sources (or a live key in remote mode)' '--profile:config profile to use (env VERITY_PROFILE)' '--quiet:print only the result; no progress or notes' '-q:print only the result; no progress or notes' '--verbose:more detail on stderr' '-v:more detail on stderr' '--no-color:no colour (also NO_COLOR, TERM=dumb, or when not a terminal)')
      vals=('--db=@any' '--remote=@any' '--key=@dyn:keys' '--key-file=@file' '--profile=@dyn:profiles')
      arg='@none' ;;
    'admin keys revoke')
      subs=()
      opts=('--yes:do not ask for confirmation on a terminal (needed in scripts)' '-y:do not ask for confirmation on a terminal (needed in scripts)' '--db:the server'\''s database: a SQLite file or postgres://… (default: $VERITY_DATABASE_URL, else the embedded store, as `verity serve`)' '--help:display help for command' '-h:display help for command' '--json:print one JSON document (the result, or the error body) on stdout' '--remote:use the verity service at URL instead of the embedded engine (env VERITY_BASE_URL)' '--local:force the embedded engine even when a profile or VERITY_BASE_URL names a service' '--key:API key: a stored key name, "-" to read it from stdin, or the key itself' '--key-file:read the API key from a file' '--test:sandbox: simulated, deterministic data and no network (or a test key in remote mode)' '--live:real sources (or a live key in remote mode)' '--profile:config profile to use (env VERITY_PROFILE)' '--quiet:print only the result; no progress or notes' '-q:print only the result; no progress or notes' '--verbose:more detail on stderr' '-v:more detail on stderr' '--no-color:no colour (also NO_COLOR, TERM=dumb, or when not a terminal)')
      vals=('--db=@any' '--remote=@any' '--key=@dyn:keys' '--key-file=@file' '--profile=@dyn:profiles')
      arg='@any' ;;
    'admin keys help')
      subs=()
      opts=('--json:print one JSON document (the result, or the error body) on stdout' '--remote:use the verity service at URL instead of the embedded engine (env VERITY_BASE_URL)' '--local:force the embedded engine even when a profile or VERITY_BASE_URL names a service' '--key:API key: a stored key name, "-" to read it from stdin, or the key itself' '--key-file:read the API key from a file' '--test:sandbox: simulated, deterministic data and no network (or a test key in remote mode)' '--live:real sources (or a live key in remote mode)' '--profile:config profile to use (env VERITY_PROFILE)' '--quiet:print only the result; no progress or notes' '-q:print only the result; no progress or notes' '--verbose:more detail on stderr' '-v:more detail on stderr' '--no-color:no colour (also NO_COLOR, TERM=dumb, or when not a terminal)')
      vals=('--remote=@any' '--key=@dyn:keys' '--key-file=@file' '--profile=@dyn:profiles')
      arg='@any' ;;
    'admin migrate')
      subs=()
      opts=('--db:the server'\''s database: a SQLite file or postgres://… (default: $VERITY_DATABASE_URL, else the embedded store, as `verity serve`)' '--help:display help for command' '-h:display help for command' '--json:print one JSON document (the result, or the error body) on stdout' '--remote:use the verity service at URL instead of the embedded engine (env VERITY_BASE_URL)' '--local:force the embedded engine even when a profile or VERITY_BASE_URL names a service' '--key:API key: a stored key name, "-" to read it from stdin, or the key itself' '--key-file:read the API key from a file' '--test:sandbox: simulated, deterministic data and no network (or a test key in remote mode)' '--live:real sources (or a live key in remote mode)' '--profile:config profile to use (env VERITY_PROFILE)' '--quiet:print only the result; no progress or notes' '-q:print only the result; no progress or notes' '--verbose:more detail on stderr' '-v:more detail on stderr' '--no-color:no colour (also NO_COLOR, TERM=dumb, or when not a terminal)')
      vals=('--db=@any' '--remote=@any' '--key=@dyn:keys' '--key-file=@file' '--profile=@dyn:profiles')
      arg='@none' ;;
    'admin usage')
      subs=()
      opts=('--period:the month, UTC (default: this month)' '--db:the server'\''s database: a SQLite file or postgres://… (default: $VERITY_DATABASE_URL, else the embedded store, as `verity serve`)' '--help:display help for command' '-h:display help for command' '--json:print one JSON document (the result, or the error body) on stdout' '--remote:use the verity service at URL instead of the embedded engine (env VERITY_BASE_URL)' '--local:force the embedded engine even when a profile or VERITY_BASE_URL names a service' '--key:API key: a stored key name, "-" to read it from stdin, or the key itself' '--key-file:read the API key from a file' '--test:sandbox: simulated, deterministic data and no network (or a test key in remote mode)' '--live:real sources (or a live key in remote mode)' '--profile:config profile to use (env VERITY_PROFILE)' '--quiet:print only the result; no progress or notes' '-q:print only the result; no progress or notes' '--verbose:more detail on stderr' '-v:more detail on stderr' '--no-color:no colour (also NO_COLOR, TERM=dumb, or when not a terminal)')
      vals=('--period=@any' '--db=@any' '--remote=@any' '--key=@dyn:keys' '--key-file=@file' '--profile=@dyn:profiles')
      arg='@none' ;;
    'admin help')
      subs=()
      opts=('--json:print one JSON document (the result, or the error body) on stdout' '--remote:use the verity service at URL instead of the embedded engine (env VERITY_BASE_URL)' '--local:force the embedded engine even when a profile or VERITY_BASE_URL names a service' '--key:API key: a stored key name, "-" to read it from stdin, or the key itself' '--key-file:read the API key from a file' '--test:sandbox: simulated, deterministic data and no network (or a test key in remote mode)' '--live:real sources (or a live key in remote mode)' '--profile:config profile to use (env VERITY_PROFILE)' '--quiet:print only the result; no progress or notes' '-q:print only the result; no progress or notes' '--verbose:more detail on stderr' '-v:more detail on stderr' '--no-color:no colour (also NO_COLOR, TERM=dumb, or when not a terminal)')
      vals=('--remote=@any' '--key=@dyn:keys' '--key-file=@file' '--profile=@dyn:profiles')
      arg='@any' ;;
    'webhooks')
      subs=('add:register an endpoint; the secret is generated and shown once unless you give one' 'list:list registered webhooks (secrets shown only as a hint)' 'ls:list registered webhooks (secrets shown only as a hint)' 'remove:remove a webhook; its undelivered events are cancelled, its attempt log kept' 'rm:remove a webhook; its undelivered events are cancelled, its attempt log kept' 'test:send a signed test event to a webhook now and show the attempt' 'deliveries:a webhook'\''s attempt log: time, event, attempt, outcome, status, latency, error' 'replay:send an event again (same id and body) with a fresh series of attempts' 'rotate-secret:replace a webhook secret (generated and shown once, or given); receivers accept both during the change' 'deliver:embedded mode: send every due delivery (first attempts and retries) now' 'trigger:send one signed sample event of any type, to verity listen by default, for testing receivers' 'help:display help for command')
      opts=('--help:display help for command' '-h:display help for command' '--json:print one JSON document (the result, or the error body) on stdout' '--remote:use the verity service at URL instead of the embedded engine (env VERITY_BASE_URL)' '--local:force the embedded engine even when a profile or VERITY_BASE_URL names a service' '--key:API key: a stored key name, "-" to read it from stdin, or the key itself' '--key-file:read the API key from a file' '--test:sandbox: simulated, deterministic data and no network (or a test key in remote mode)' '--live:real sources (or a live key in remote mode)' '--profile:config profile to use (env VERITY_PROFILE)' '--quiet:print only the result; no progress or notes' '-q:print only the result; no progress or notes' '--verbose:more detail on stderr' '-v:more detail on stderr' '--no-color:no colour (also NO_COLOR, TERM=dumb, or when not a terminal)')
      vals=('--remote=@any' '--key=@dyn:keys' '--key-file=@file' '--profile=@dyn:profiles')
      arg='@none' ;;
    'webhooks add')
      subs=()
      opts=('--events:comma-separated: verification.completed, verification.failed, batch.completed, batch.partial, credit.threshold' '--secret:signing secret (≥ 32 characters; whsec_ + base64 of 24–64 bytes for --signature-scheme standard); - reads it from stdin' '--secret-file:read the signing secret from a file' '--signature-scheme:how deliveries are signed: verity (X-Service-Signature) or standard (Standard Webhooks: webhook-id/-timestamp/-signature)' '--help:display help for command' '-h:display help for command' '--json:print one JSON document (the result, or the error body) on stdout' '--remote:use the verity service at URL instead of the embedded engine (env VERITY_BASE_URL)' '--local:force the embedded engine even when a profile or VERITY_BASE_URL names a service' '--key:API key: a stored key name, "-" to read it from stdin, or the key itself' '--key-file:read the API key from a file' '--test:sandbox: simulated, deterministic data and no network (or a test key in remote mode)' '--live:real sources (or a live key in remote mode)' '--profile:config profile to use (env VERITY_PROFILE)' '--quiet:print only the result; no progress or notes' '-q:print only the result; no progress or notes' '--verbose:more detail on stderr' '-v:more detail on stderr' '--no-color:no colour (also NO_COLOR, TERM=dumb, or when not a terminal)')
      vals=('--events=@any' '--secret=@any' '--secret-file=@file' '--signature-scheme=verity,standard' '--remote=@any' '--key=@dyn:keys' '--key-file=@file' '--profile=@dyn:profiles')
      arg='@any' ;;
    'webhooks list')
      subs=()
      opts=('--help:display help for command' '-h:display help for command' '--json:print one JSON document (the result, or the error body) on stdout' '--remote:use the verity service at URL instead of the embedded engine (env VERITY_BASE_URL)' '--local:force the embedded engine even when a profile or VERITY_BASE_URL names a service' '--key:API key: a stored key name, "-" to read it from stdin, or the key itself' '--key-file:read the API key from a file' '--test:sandbox: simulated, deterministic data and no network (or a test key in remote mode)' '--live:real sources (or a live key in remote mode)' '--profile:config profile to use (env VERITY_PROFILE)' '--quiet:print only the result; no progress or notes' '-q:print only the result; no progress or notes' '--verbose:more detail on stderr' '-v:more detail on stderr' '--no-color:no colour (also NO_COLOR, TERM=dumb, or when not a terminal)')
      vals=('--remote=@any' '--key=@dyn:keys' '--key-file=@file' '--profile=@dyn:profiles')
      arg='@none' ;;
    'webhooks remove')
      subs=()
      opts=('--yes:do not ask for confirmation on a terminal (needed in scripts)' '-y:do not ask for confirmation on a terminal (needed in scripts)' '--help:display help for command' '-h:display help for command' '--json:print one JSON document (the result, or the error body) on stdout' '--remote:use the verity service at URL instead of the embedded engine (env VERITY_BASE_URL)' '--local:force the embedded engine even when a profile or VERITY_BASE_URL names a service' '--key:API key: a stored key name, "-" to read it from stdin, or the key itself' '--key-file:read the API key from a file' '--test:sandbox: simulated, deterministic data and no network (or a test key in remote mode)' '--live:real sources (or a live key in remote mode)' '--profile:config profile to use (env VERITY_PROFILE)' '--quiet:print only the result; no progress or notes' '-q:print only the result; no progress or notes' '--verbose:more detail on stderr' '-v:more detail on stderr' '--no-color:no colour (also NO_COLOR, TERM=dumb, or when not a terminal)')
      vals=('--remote=@any' '--key=@dyn:keys' '--key-file=@file' '--profile=@dyn:profiles')
      arg='@dyn:webhooks' ;;
    'webhooks test')
      subs=()
      opts=('--type:event type of the sample (default: its first subscribed type)' '--help:display help for command' '-h:display help for command' '--json:print one JSON document (the result, or the error body) on stdout' '--remote:use the verity service at URL instead of the embedded engine (env VERITY_BASE_URL)' '--local:force the embedded engine even when a profile or VERITY_BASE_URL names a service' '--key:API key: a stored key name, "-" to read it from stdin, or the key itself' '--key-file:read the API key from a file' '--test:sandbox: simulated, deterministic data and no network (or a test key in remote mode)' '--live:real sources (or a live key in remote mode)' '--profile:config profile to use (env VERITY_PROFILE)' '--quiet:print only the result; no progress or notes' '-q:print only the result; no progress or notes' '--verbose:more detail on stderr' '-v:more detail on stderr' '--no-color:no colour (also NO_COLOR, TERM=dumb, or when not a terminal)')
      vals=('--type=verification.completed,verification.failed,batch.completed,batch.partial,credit.threshold' '--remote=@any' '--key=@dyn:keys' '--key-file=@file' '--profile=@dyn:profiles')
      arg='@dyn:webhooks' ;;
    'webhooks deliveries')
      subs=()
      opts=('--limit:attempts to show, newest first' '--help:display help for command' '-h:display help for command' '--json:print one JSON document (the result, or the error body) on stdout' '--remote:use the verity service at URL instead of the embedded engine (env VERITY_BASE_URL)' '--local:force the embedded engine even when a profile or VERITY_BASE_URL names a service' '--key:API key: a stored key name, "-" to read it from stdin, or the key itself' '--key-file:read the API key from a file' '--test:sandbox: simulated, deterministic data and no network (or a test key in remote mode)' '--live:real sources (or a live key in remote mode)' '--profile:config profile to use (env VERITY_PROFILE)' '--quiet:print only the result; no progress or notes' '-q:print only the result; no progress or notes' '--verbose:more detail on stderr' '-v:more detail on stderr' '--no-color:no colour (also NO_COLOR, TERM=dumb, or when not a terminal)')
      vals=('--limit=@any' '--remote=@any' '--key=@dyn:keys' '--key-file=@file' '--profile=@dyn:profiles')
      arg='@dyn:webhooks' ;;
    'webhooks replay')
      subs=()
      opts=('--webhook:only to this webhook (default: every current subscriber)' '--help:display help for command' '-h:display help for command' '--json:print one JSON document (the result, or the error body) on stdout' '--remote:use the verity service at URL instead of the embedded engine (env VERITY_BASE_URL)' '--local:force the embedded engine even when a profile or VERITY_BASE_URL names a service' '--key:API key: a stored key name, "-" to read it from stdin, or the key itself' '--key-file:read the API key from a file' '--test:sandbox: simulated, deterministic data and no network (or a test key in remote mode)' '--live:real sources (or a live key in remote mode)' '--profile:config profile to use (env VERITY_PROFILE)' '--quiet:print only the result; no progress or notes' '-q:print only the result; no progress or notes' '--verbose:more detail on stderr' '-v:more detail on stderr' '--no-color:no colour (also NO_COLOR, TERM=dumb, or when not a terminal)')
      vals=('--webhook=@dyn:webhooks' '--remote=@any' '--key=@dyn:keys' '--key-file=@file' '--profile=@dyn:profiles')
      arg='@any' ;;
    'webhooks rotate-secret')
      subs=()
      opts=('--secret:the new secret (≥ 32 characters); - reads it from stdin' '--secret-file:read the new secret from a file' '--help:display help for command' '-h:display help for command' '--json:print one JSON document (the result, or the error body) on stdout' '--remote:use the verity service at URL instead of the embedded engine (env VERITY_BASE_URL)' '--local:force the embedded engine even when a profile or VERITY_BASE_URL names a service' '--key:API key: a stored key name, "-" to read it from stdin, or the key itself' '--key-file:read the API key from a file' '--test:sandbox: simulated, deterministic data and no network (or a test key in remote mode)' '--live:real sources (or a live key in remote mode)' '--profile:config profile to use (env VERITY_PROFILE)' '--quiet:print only the result; no progress or notes' '-q:print only the result; no progress or notes' '--verbose:more detail on stderr' '-v:more detail on stderr' '--no-color:no colour (also NO_COLOR, TERM=dumb, or when not a terminal)')
      vals=('--secret=@any' '--secret-file=@file' '--remote=@any' '--key=@dyn:keys' '--key-file=@file' '--profile=@dyn:profiles')
      arg='@dyn:webhooks' ;;
    'webhooks deliver')
      subs=()
      opts=('--watch:keep running and send retries as they fall due (Ctrl-C to stop)' '--help:display help for command' '-h:display help for command' '--json:print one JSON document (the result, or the error body) on stdout' '--remote:use the verity service at URL instead of the embedded engine (env VERITY_BASE_URL)' '--local:force the embedded engine even when a profile or VERITY_BASE_URL names a service' '--key:API key: a stored key name, "-" to read it from stdin, or the key itself' '--key-file:read the API key from a file' '--test:sandbox: simulated, deterministic data and no network (or a test key in remote mode)' '--live:real sources (or a live key in remote mode)' '--profile:config profile to use (env VERITY_PROFILE)' '--quiet:print only the result; no progress or notes' '-q:print only the result; no progress or notes' '--verbose:more detail on stderr' '-v:more detail on stderr' '--no-color:no colour (also NO_COLOR, TERM=dumb, or when not a terminal)')
      vals=('--remote=@any' '--key=@dyn:keys' '--key-file=@file' '--profile=@dyn:profiles')
      arg='@none' ;;
    'webhooks trigger')
      subs=()
      opts=('--to:receiver URL' '--secret:signing secret (default: the local listener secret)' '--secret-file:read the signing secret from a file' '--signature-scheme:sign as verity (X-Service-Signature) or standard (Standard Webhooks)' '--help:display help for command' '-h:display help for command' '--json:print one JSON document (the result, or the error body) on stdout' '--remote:use the verity service at URL instead of the embedded engine (env VERITY_BASE_URL)' '--local:force the embedded engine even when a profile or VERITY_BASE_URL names a service' '--key:API key: a stored key name, "-" to read it from stdin, or the key itself' '--key-file:read the API key from a file' '--test:sandbox: simulated, deterministic data and no network (or a test key in remote mode)' '--live:real sources (or a live key in remote mode)' '--profile:config profile to use (env VERITY_PROFILE)' '--quiet:print only the result; no progress or notes' '-q:print only the result; no progress or notes' '--verbose:more detail on stderr' '-v:more detail on stderr' '--no-color:no colour (also NO_COLOR, TERM=dumb, or when not a terminal)')
      vals=('--to=@any' '--secret=@any' '--secret-file=@file' '--signature-scheme=verity,standard' '--remote=@any' '--key=@dyn:keys' '--key-file=@file' '--profile=@dyn:profiles')
      arg='@any' ;;
    'webhooks help')
      subs=()
      opts=('--json:print one JSON document (the result, or the error body) on stdout' '--remote:use the verity service at URL instead of the embedded engine (env VERITY_BASE_URL)' '--local:force the embedded engine even when a profile or VERITY_BASE_URL names a service' '--key:API key: a stored key name, "-" to read it from stdin, or the key itself' '--key-file:read the API key from a file' '--test:sandbox: simulated, deterministic data and no network (or a test key in remote mode)' '--live:real sources (or a live key in remote mode)' '--profile:config profile to use (env VERITY_PROFILE)' '--quiet:print only the result; no progress or notes' '-q:print only the result; no progress or notes' '--verbose:more detail on stderr' '-v:more detail on stderr' '--no-color:no colour (also NO_COLOR, TERM=dumb, or when not a terminal)')
      vals=('--remote=@any' '--key=@dyn:keys' '--key-file=@file' '--profile=@dyn:profiles')
      arg='@any' ;;
    'listen')
      subs=()
      opts=('--port:port on 127.0.0.1 (0 = any free port)' '--secret:secret to check signatures with; repeat during a rotation (env VERITY_WEBHOOK_SECRET)' '--secret-file:read a secret from a file; repeatable' '--events:only handle these event types (comma-separated); others are acknowledged and skipped' '--forward-to:forward raw bytes and headers to your app; repeatable, type=url routes one type' '--log:append every event and refusal to FILE as NDJSON' '--max-age:refuse events created longer ago than this, as replays (default: retry horizon + 15 min = 446)' '--tls-cert:serve HTTPS with this PEM certificate (with --tls-key)' '--tls-key:PEM private key for --tls-cert' '--print-secret:print the local listener secret and exit' '--help:display help for command' '-h:display help for command' '--json:print one JSON document (the result, or the error body) on stdout' '--remote:use the verity service at URL instead of the embedded engine (env VERITY_BASE_URL)' '--local:force the embedded engine even when a profile or VERITY_BASE_URL names a service' '--key:API key: a stored key name, "-" to read it from stdin, or the key itself' '--key-file:read the API key from a file' '--test:sandbox: simulated, deterministic data and no network (or a test key in remote mode)' '--live:real sources (or a live key in remote mode)' '--profile:config profile to use (env VERITY_PROFILE)' '--quiet:print only the result; no progress or notes' '-q:print only the result; no progress or notes' '--verbose:more detail on stderr' '-v:more detail on stderr' '--no-color:no colour (also NO_COLOR, TERM=dumb, or when not a terminal)')
      vals=('--port=@any' '--secret=@any' '--secret-file=@file' '--events=@any' '--forward-to=@any' '--log=@file' '--max-age=@any' '--tls-cert=@file' '--tls-key=@file' '--remote=@any' '--key=@dyn:keys' '--key-file=@file' '--profile=@dyn:profiles')
      arg='@none' ;;
    'models')
      subs=('pull:download a model once into the data folder, checking sizes and SHA-256 digests' 'list:the models in the data folder: name, size, path, and whether their files still match their digests' 'ls:the models in the data folder: name, size, path, and whether their files still match their digests' 'help:display help for command')
      opts=('--help:display help for command' '-h:display help for command' '--json:print one JSON document (the result, or the error body) on stdout' '--remote:use the verity service at URL instead of the embedded engine (env VERITY_BASE_URL)' '--local:force the embedded engine even when a profile or VERITY_BASE_URL names a service' '--key:API key: a stored key name, "-" to read it from stdin, or the key itself' '--key-file:read the API key from a file' '--test:sandbox: simulated, deterministic data and no network (or a test key in remote mode)' '--live:real sources (or a live key in remote mode)' '--profile:config profile to use (env VERITY_PROFILE)' '--quiet:print only the result; no progress or notes' '-q:print only the result; no progress or notes' '--verbose:more detail on stderr' '-v:more detail on stderr' '--no-color:no colour (also NO_COLOR, TERM=dumb, or when not a terminal)')
      vals=('--remote=@any' '--key=@dyn:keys' '--key-file=@file' '--profile=@dyn:profiles')
      arg='@none' ;;
    'models pull')
      subs=()
      opts=('--model:Hugging Face model id (owner/name) with an ONNX export' '--onnx-file:which ONNX file of the repository to use' '--from:a mirror URL to fetch the files from, or a folder holding them' '--force:download again even when a checked copy is present' '--help:display help for command' '-h:display help for command' '--json:print one JSON document (the result, or the error body) on stdout' '--remote:use the verity service at URL instead of the embedded engine (env VERITY_BASE_URL)' '--local:force the embedded engine even when a profile or VERITY_BASE_URL names a service' '--key:API key: a stored key name, "-" to read it from stdin, or the key itself' '--key-file:read the API key from a file' '--test:sandbox: simulated, deterministic data and no network (or a test key in remote mode)' '--live:real sources (or a live key in remote mode)' '--profile:config profile to use (env VERITY_PROFILE)' '--quiet:print only the result; no progress or notes' '-q:print only the result; no progress or notes' '--verbose:more detail on stderr' '-v:more detail on stderr' '--no-color:no colour (also NO_COLOR, TERM=dumb, or when not a terminal)')
      vals=('--model=@any' '--onnx-file=@file' '--from=@any' '--remote=@any' '--key=@dyn:keys' '--key-file=@file' '--profile=@dyn:profiles')
      arg='nli' ;;
    'models list')
      subs=()
      opts=('--help:display help for command' '-h:display help for command' '--json:print one JSON document (the result, or the error body) on stdout' '--remote:use the verity service at URL instead of the embedded engine (env VERITY_BASE_URL)' '--local:force the embedded engine even when a profile or VERITY_BASE_URL names a service' '--key:API key: a stored key name, "-" to read it from stdin, or the key itself' '--key-file:read the API key from a file' '--test:sandbox: simulated, deterministic data and no network (or a test key in remote mode)' '--live:real sources (or a live key in remote mode)' '--profile:config profile to use (env VERITY_PROFILE)' '--quiet:print only the result; no progress or notes' '-q:print only the result; no progress or notes' '--verbose:more detail on stderr' '-v:more detail on stderr' '--no-color:no colour (also NO_COLOR, TERM=dumb, or when not a terminal)')
      vals=('--remote=@any' '--key=@dyn:keys' '--key-file=@file' '--profile=@dyn:profiles')
      arg='@none' ;;
    'models help')
      subs=()
      opts=('--json:print one JSON document (the result, or the error body) on stdout' '--remote:use the verity service at URL instead of the embedded engine (env VERITY_BASE_URL)' '--local:force the embedded engine even when a profile or VERITY_BASE_URL names a service' '--key:API key: a stored key name, "-" to read it from stdin, or the key itself' '--key-file:read the API key from a file' '--test:sandbox: simulated, deterministic data and no network (or a test key in remote mode)' '--live:real sources (or a live key in remote mode)' '--profile:config profile to use (env VERITY_PROFILE)' '--quiet:print only the result; no progress or notes' '-q:print only the result; no progress or notes' '--verbose:more detail on stderr' '-v:more detail on stderr' '--no-color:no colour (also NO_COLOR, TERM=dumb, or when not a terminal)')
      vals=('--remote=@any' '--key=@dyn:keys' '--key-file=@file' '--profile=@dyn:profiles')
      arg='@any' ;;
    'report')
      subs=()
      opts=('--input:the media or document file the result is about (embeds the image)' '--output:the HTML file to write' '-o:the HTML file to write' '--help:display help for command' '-h:display help for command' '--json:print one JSON document (the result, or the error body) on stdout' '--remote:use the verity service at URL instead of the embedded engine (env VERITY_BASE_URL)' '--local:force the embedded engine even when a profile or VERITY_BASE_URL names a service' '--key:API key: a stored key name, "-" to read it from stdin, or the key itself' '--key-file:read the API key from a file' '--test:sandbox: simulated, deterministic data and no network (or a test key in remote mode)' '--live:real sources (or a live key in remote mode)' '--profile:config profile to use (env VERITY_PROFILE)' '--quiet:print only the result; no progress or notes' '-q:print only the result; no progress or notes' '--verbose:more detail on stderr' '-v:more detail on stderr' '--no-color:no colour (also NO_COLOR, TERM=dumb, or when not a terminal)')
      vals=('--input=@file' '--output=@file' '-o=@file' '--remote=@any' '--key=@dyn:keys' '--key-file=@file' '--profile=@dyn:profiles')
      arg='@any' ;;
    'batches')
      subs=('list:batches of this key, newest first' 'ls:batches of this key, newest first' 'get:one batch: status, counts, credits' 'results:the finished items as NDJSON lines (custom_id, index, seq, status, result | error)' 'cancel:cancel a batch: queued items never run, running ones stop (nothing charged for them)' 'help:display help for command')
      opts=('--help:display help for command' '-h:display help for command' '--json:print one JSON document (the result, or the error body) on stdout' '--remote:use the verity service at URL instead of the embedded engine (env VERITY_BASE_URL)' '--local:force the embedded engine even when a profile or VERITY_BASE_URL names a service' '--key:API key: a stored key name, "-" to read it from stdin, or the key itself' '--key-file:read the API key from a file' '--test:sandbox: simulated, deterministic data and no network (or a test key in remote mode)' '--live:real sources (or a live key in remote mode)' '--profile:config profile to use (env VERITY_PROFILE)' '--quiet:print only the result; no progress or notes' '-q:print only the result; no progress or notes' '--verbose:more detail on stderr' '-v:more detail on stderr' '--no-color:no colour (also NO_COLOR, TERM=dumb, or when not a terminal)')
      vals=('--remote=@any' '--key=@dyn:keys' '--key-file=@file' '--profile=@dyn:profiles')
      arg='@none' ;;
    'batches list')
      subs=()
      opts=('--limit:how many (1 to 100)' '--help:display help for command' '-h:display help for command' '--json:print one JSON document (the result, or the error body) on stdout' '--remote:use the verity service at URL instead of the embedded engine (env VERITY_BASE_URL)' '--local:force the embedded engine even when a profile or VERITY_BASE_URL names a service' '--key:API key: a stored key name, "-" to read it from stdin, or the key itself' '--key-file:read the API key from a file' '--test:sandbox: simulated, deterministic data and no network (or a test key in remote mode)' '--live:real sources (or a live key in remote mode)' '--profile:config profile to use (env VERITY_PROFILE)' '--quiet:print only the result; no progress or notes' '-q:print only the result; no progress or notes' '--verbose:more detail on stderr' '-v:more detail on stderr' '--no-color:no colour (also NO_COLOR, TERM=dumb, or when not a terminal)')
      vals=('--limit=@any' '--remote=@any' '--key=@dyn:keys' '--key-file=@file' '--profile=@dyn:profiles')
      arg='@none' ;;
    'batches get')
      subs=()
      opts=('--help:display help for command' '-h:display help for command' '--json:print one JSON document (the result, or the error body) on stdout' '--remote:use the verity service at URL instead of the embedded engine (env VERITY_BASE_URL)' '--local:force the embedded engine even when a profile or VERITY_BASE_URL names a service' '--key:API key: a stored key name, "-" to read it from stdin, or the key itself' '--key-file:read the API key from a file' '--test:sandbox: simulated, deterministic data and no network (or a test key in remote mode)' '--live:real sources (or a live key in remote mode)' '--profile:config profile to use (env VERITY_PROFILE)' '--quiet:print only the result; no progress or notes' '-q:print only the result; no progress or notes' '--verbose:more detail on stderr' '-v:more detail on stderr' '--no-color:no colour (also NO_COLOR, TERM=dumb, or when not a terminal)')
      vals=('--remote=@any' '--key=@dyn:keys' '--key-file=@file' '--profile=@dyn:profiles')
      arg='@any' ;;
    'batches results')
      subs=()
      opts=('--after:continue after this line (its seq): resumes a broken download' '--status:only items that ended so' '--follow:keep reading until the batch ends' '--help:display help for command' '-h:display help for command' '--json:print one JSON document (the result, or the error body) on stdout' '--remote:use the verity service at URL instead of the embedded engine (env VERITY_BASE_URL)' '--local:force the embedded engine even when a profile or VERITY_BASE_URL names a service' '--key:API key: a stored key name, "-" to read it from stdin, or the key itself' '--key-file:read the API key from a file' '--test:sandbox: simulated, deterministic data and no network (or a test key in remote mode)' '--live:real sources (or a live key in remote mode)' '--profile:config profile to use (env VERITY_PROFILE)' '--quiet:print only the result; no progress or notes' '-q:print only the result; no progress or notes' '--verbose:more detail on stderr' '-v:more detail on stderr' '--no-color:no colour (also NO_COLOR, TERM=dumb, or when not a terminal)')
      vals=('--after=@any' '--status=succeeded,failed,cancelled' '--remote=@any' '--key=@dyn:keys' '--key-file=@file' '--profile=@dyn:profiles')
      arg='@any' ;;
    'batches cancel')
      subs=()
      opts=('--yes:do not ask for confirmation on a terminal (needed in scripts)' '-y:do not ask for confirmation on a terminal (needed in scripts)' '--help:display help for command' '-h:display help for command' '--json:print one JSON document (the result, or the error body) on stdout' '--remote:use the verity service at URL instead of the embedded engine (env VERITY_BASE_URL)' '--local:force the embedded engine even when a profile or VERITY_BASE_URL names a service' '--key:API key: a stored key name, "-" to read it from stdin, or the key itself' '--key-file:read the API key from a file' '--test:sandbox: simulated, deterministic data and no network (or a test key in remote mode)' '--live:real sources (or a live key in remote mode)' '--profile:config profile to use (env VERITY_PROFILE)' '--quiet:print only the result; no progress or notes' '-q:print only the result; no progress or notes' '--verbose:more detail on stderr' '-v:more detail on stderr' '--no-color:no colour (also NO_COLOR, TERM=dumb, or when not a terminal)')
      vals=('--remote=@any' '--key=@dyn:keys' '--key-file=@file' '--profile=@dyn:profiles')
      arg='@any' ;;
    'batches help')
      subs=()
      opts=('--json:print one JSON document (the result, or the error body) on stdout' '--remote:use the verity service at URL instead of the embedded engine (env VERITY_BASE_URL)' '--local:force the embedded engine even when a profile or VERITY_BASE_URL names a service' '--key:API key: a stored key name, "-" to read it from stdin, or the key itself' '--key-file:read the API key from a file' '--test:sandbox: simulated, deterministic data and no network (or a test key in remote mode)' '--live:real sources (or a live key in remote mode)' '--profile:config profile to use (env VERITY_PROFILE)' '--quiet:print only the result; no progress or notes' '-q:print only the result; no progress or notes' '--verbose:more detail on stderr' '-v:more detail on stderr' '--no-color:no colour (also NO_COLOR, TERM=dumb, or when not a terminal)')
      vals=('--remote=@any' '--key=@dyn:keys' '--key-file=@file' '--profile=@dyn:profiles')
      arg='@any' ;;
    'help')
      subs=()
      opts=('--help:display help for command' '-h:display help for command' '--json:print one JSON document (the result, or the error body) on stdout' '--remote:use the verity service at URL instead of the embedded engine (env VERITY_BASE_URL)' '--local:force the embedded engine even when a profile or VERITY_BASE_URL names a service' '--key:API key: a stored key name, "-" to read it from stdin, or the key itself' '--key-file:read the API key from a file' '--test:sandbox: simulated, deterministic data and no network (or a test key in remote mode)' '--live:real sources (or a live key in remote mode)' '--profile:config profile to use (env VERITY_PROFILE)' '--quiet:print only the result; no progress or notes' '-q:print only the result; no progress or notes' '--verbose:more detail on stderr' '-v:more detail on stderr' '--no-color:no colour (also NO_COLOR, TERM=dumb, or when not a terminal)')
      vals=('--remote=@any' '--key=@dyn:keys' '--key-file=@file' '--profile=@dyn:profiles')
      arg='@any' ;;
  esac
}

_verity() {
  local cmdpath= w i skip=0 arg= kind= v
  local -a subs opts vals
  local valued=' --account --after --analysis-budget-ms --analysis-memory-mb --analysis-workers --claim --company-name --concurrency --content --db --db-answer-timeout-ms --env --events --fail-on --file --forward-to --from --heatmap --host --input --input-format --jurisdiction --key --key-file --language --limit --log --log-level --max-age --max-evidence --mime-type --min-trust --model --name --onnx-file --out --output --period --plan --pool --port --profile --registration-number --remote --report --secret --secret-file --seen --signature-scheme --source --sources --status --tls-cert --tls-key --to --type --url --webhook -o '
  for ((i = 2; i < CURRENT; i++)); do
    w=${words[i]}
    if ((skip)); then skip=0; continue; fi
    case "$w" in
      --*=*) ;;
      -*) [[ $valued == *" $w "* ]] && skip=1 ;;
      *) _verity_next "$cmdpath" "$w"; [[ -n $REPLY ]] && cmdpath=$REPLY ;;
    esac
  done
  _verity_data "$cmdpath"
  for v in $vals; do
    [[ ${v%%=*} == "${words[CURRENT-1]}" ]] && kind=${v#*=}
  done
  if [[ -n $kind ]]; then
    case "$kind" in
      @file) _files ;;
      @dyn:*) compadd -- ${(f)"$(${words[1]} __complete ${kind#@dyn:} "$PREFIX" 2>/dev/null)"} ;;
      @any | @none) _message 'value' ;;
      *) compadd -- ${(s:,:)kind} ;;
    esac
    return
  fi
  if [[ $PREFIX == -* ]]; then
    _describe -t options 'option' opts
    return
  fi
  (( ${#subs} )) && _describe -t commands 'command' subs
  case "$arg" in
    @file) _files ;;
    @dyn:*) compadd -- ${(f)"$(${words[1]} __complete ${arg#@dyn:} "$PREFIX" 2>/dev/null)"} ;;
    @any | @none) ;;
    *) compadd -- ${(s:,:)arg} ;;
  esac
}

if [[ ${zsh_eval_context[-1]} == loadautofunc ]]; then
  _verity "$@"
else
  compdef _verity verity
fi
