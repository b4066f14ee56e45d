# fish completion for verity. Generated from the command tree by `verity completion fish`; do not edit.
# Install: verity completion fish > ~/.config/fish/completions/verity.fish

set -g __verity_valued --account --after --analysis-budget-ms --analysis-memory-mb --analysis-workers --claim --company-name --concurrency --content --db --db-answer-timeout-ms --env --events --fail-on --file --forward-to --from --heatmap --host --input --input-format --jurisdiction --key --key-file --language --limit --log --log-level --max-age --max-evidence --mime-type --min-trust --model --name --onnx-file --out --output --period --plan --pool --port --profile --registration-number --remote --report --resume-after --secret --secret-file --seen --signature-scheme --source --sources --status --tls-cert --tls-key --to --type --url --webhook -o

function __verity_next
    switch "$argv[1]|$argv[2]"
        case '|verify'
            echo 'verify'
        case '|corpus'
            echo 'corpus'
        case '|data'
            echo 'data'
        case '|media'
            echo 'media'
        case '|keys'
            echo 'keys'
        case '|config'
            echo 'config'
        case '|completion'
            echo 'completion'
        case '|serve'
            echo 'serve'
        case '|worker'
            echo 'worker'
        case '|admin'
            echo 'admin'
        case '|webhooks'
            echo 'webhooks'
        case '|listen'
            echo 'listen'
        case '|trigger'
            echo 'trigger'
        case '|models'
            echo 'models'
        case '|report'
            echo 'report'
        case '|batches'
            echo 'batches'
        case '|help'
            echo 'help'
        case 'verify|claim'
            echo 'verify claim'
        case 'verify|business'
            echo 'verify business'
        case 'verify|media'
            echo 'verify media'
        case 'verify|document'
            echo 'verify document'
        case 'verify|batch'
            echo 'verify batch'
        case 'verify|help'
            echo 'verify help'
        case 'corpus|add'
            echo 'corpus add'
        case 'corpus|list' 'corpus|ls'
            echo 'corpus list'
        case 'corpus|remove' 'corpus|rm'
            echo 'corpus remove'
        case 'corpus|help'
            echo 'corpus help'
        case 'data|import'
            echo 'data import'
        case 'data|help'
            echo 'data help'
        case 'media|index'
            echo 'media index'
        case 'media|help'
            echo 'media help'
        case 'media index|add'
            echo 'media index add'
        case 'media index|list' 'media index|ls'
            echo 'media index list'
        case 'media index|help'
            echo 'media index help'
        case 'keys|add'
            echo 'keys add'
        case 'keys|list' 'keys|ls'
            echo 'keys list'
        case 'keys|use'
            echo 'keys use'
        case 'keys|remove' 'keys|rm'
            echo 'keys remove'
        case 'keys|help'
            echo 'keys help'
        case 'config|get'
            echo 'config get'
        case 'config|set'
            echo 'config set'
        case 'config|unset'
            echo 'config unset'
        case 'config|list' 'config|ls'
            echo 'config list'
        case 'config|path'
            echo 'config path'
        case 'config|help'
            echo 'config help'
        case 'admin|keys'
            echo 'admin keys'
        case 'admin|migrate'
            echo 'admin migrate'
        case 'admin|usage'
            echo 'admin usage'
        case 'admin|help'
            echo 'admin help'
        case 'admin keys|create'
            echo 'admin keys create'
        case 'admin keys|list' 'admin keys|ls'
            echo 'admin keys list'
        case 'admin keys|revoke'
            echo 'admin keys revoke'
        case 'admin keys|help'
            echo 'admin keys help'
        case 'webhooks|add'
            echo 'webhooks add'
        case 'webhooks|list' 'webhooks|ls'
            echo 'webhooks list'
        case 'webhooks|remove' 'webhooks|rm'
            echo 'webhooks remove'
        case 'webhooks|test'
            echo 'webhooks test'
        case 'webhooks|deliveries'
            echo 'webhooks deliveries'
        case 'webhooks|replay'
            echo 'webhooks replay'
        case 'webhooks|rotate-secret'
            echo 'webhooks rotate-secret'
        case 'webhooks|deliver'
            echo 'webhooks deliver'
        case 'webhooks|trigger'
            echo 'webhooks trigger'
        case 'webhooks|help'
            echo 'webhooks help'
        case 'listen|sessions'
            echo 'listen sessions'
        case 'models|pull'
            echo 'models pull'
        case 'models|list' 'models|ls'
            echo 'models list'
        case 'models|help'
            echo 'models help'
        case 'batches|list' 'batches|ls'
            echo 'batches list'
        case 'batches|get'
            echo 'batches get'
        case 'batches|results'
            echo 'batches results'
        case 'batches|cancel'
            echo 'batches cancel'
        case 'batches|help'
            echo 'batches help'
    end
end

# The subcommand path typed so far (option values and positional arguments skipped).
function __verity_path
    set -l cmdpath ''
    set -l skip 0
    for w in (commandline -opc)[2..-1]
        if test $skip = 1
            set skip 0
            continue
        end
        switch $w
            case '--*=*'
            case '-*'
                contains -- $w $__verity_valued; and set skip 1
            case '*'
                set -l next (__verity_next "$cmdpath" $w)
                test -n "$next"; and set cmdpath $next
        end
    end
    echo $cmdpath
end

function __verity_at
    set -l p (__verity_path)
    test "$p" = "$argv[1]"
end

# Values from the user's data (key names, webhook ids, settings…): asked of the command itself.
function __verity_dyn
    set -l bin (commandline -opc)[1]
    $bin __complete $argv[1] (commandline -ct) 2>/dev/null
end

complete -c verity -f
# global options
complete -c verity -l json -d 'print one JSON document (the result, or the error body) on stdout'
complete -c verity -l remote -x -d 'use the verity service at URL instead of the embedded engine (env VERITY_BASE_URL; no URL: the profile\'s base_url)'
complete -c verity -l local -d 'force the embedded engine even when a profile or VERITY_BASE_URL names a service'
complete -c verity -l key -x -a '(__verity_dyn keys)' -d 'API key: a stored key name, "-" to read it from stdin, or the key itself'
complete -c verity -l key-file -r -F -d 'read the API key from a file'
complete -c verity -l test -d 'sandbox: simulated, deterministic data and no network (or a test key in remote mode)'
complete -c verity -l live -d 'real sources (or a live key in remote mode)'
complete -c verity -l profile -x -a '(__verity_dyn profiles)' -d 'config profile to use (env VERITY_PROFILE)'
complete -c verity -l quiet -s q -d 'print only the result; no progress or notes'
complete -c verity -l verbose -s v -d 'more detail on stderr'
complete -c verity -l no-color -d 'no colour (also NO_COLOR, TERM=dumb, or when not a terminal)'
# verity
complete -c verity -n '__verity_at \'\'' -a 'verify' -d 'verify a claim, a company, an image/video or a document'
complete -c verity -n '__verity_at \'\'' -a 'corpus' -d 'your own evidence corpora for claim checks (`--sources local`)'
complete -c verity -n '__verity_at \'\'' -a 'data' -d 'offline bulk data for business verification'
complete -c verity -n '__verity_at \'\'' -a 'media' -d 'manage the known-media index used for provenance'
complete -c verity -n '__verity_at \'\'' -a 'keys' -d 'store, list, choose and remove API keys (kept in the config file, mode 0600)'
complete -c verity -n '__verity_at \'\'' -a 'config' -d 'read and change settings in the config file (dotted names: llm.base_url, profiles.staging.base_url, …)'
complete -c verity -n '__verity_at \'\'' -a 'completion' -d 'print the shell completion script for bash, zsh or fish'
complete -c verity -n '__verity_at \'\'' -a 'serve' -d 'run the verification service over HTTP: /v1/verify/*, /v1/openapi.json, /healthz'
complete -c verity -n '__verity_at \'\'' -a 'worker' -d 'deliver webhooks from a PostgreSQL outbox shared with `verity serve` processes (no HTTP)'
complete -c verity -n '__verity_at \'\'' -a 'admin' -d 'manage the service\'s accounts and API keys (what a hosted dashboard would do), on the server\'s database'
complete -c verity -n '__verity_at \'\'' -a 'webhooks' -d 'register webhooks and inspect, test, replay and deliver their events (remote service, or local in embedded mode)'
complete -c verity -n '__verity_at \'\'' -a 'listen' -d 'receive webhook events (on loopback, or from a service\'s event stream with --remote): check signatures, print, forward to your app'
complete -c verity -n '__verity_at \'\'' -a 'trigger' -d 'make the service emit a sample event of a type to your account (streams and registered webhooks get it)'
complete -c verity -n '__verity_at \'\'' -a 'models' -d 'local models verity runs in-process (the claim NLI stance model)'
complete -c verity -n '__verity_at \'\'' -a 'report' -d 'write a self-contained HTML report from a saved --json result (offline, printable)'
complete -c verity -n '__verity_at \'\'' -a 'batches' -d 'server batches: list, inspect, download results of, and cancel batches (needs --remote)'
complete -c verity -n '__verity_at \'\'' -a 'help' -d 'show the help of a command: verity help verify claim'
complete -c verity -n '__verity_at \'\'' -l version -s V -d 'print the version'
complete -c verity -n '__verity_at \'\'' -l help -s h -d 'display help for command'
# verity verify
complete -c verity -n '__verity_at \'verify\'' -a 'claim' -d 'check a statement against encyclopedic, fact-check, scholarly, news and web sources'
complete -c verity -n '__verity_at \'verify\'' -a 'business' -d 'check a company against company registries'
complete -c verity -n '__verity_at \'verify\'' -a 'media' -d 'check an image or video: C2PA, metadata, forensics, deepfake signals, provenance'
complete -c verity -n '__verity_at \'verify\'' -a 'document' -d 'check a PDF, DOCX, image or text: AI generation, manipulation, metadata, signatures'
complete -c verity -n '__verity_at \'verify\'' -a 'batch' -d 'verify many claims, companies, images or documents in one process: JSONL, CSV or a folder'
complete -c verity -n '__verity_at \'verify\'' -a 'help' -d 'display help for command'
complete -c verity -n '__verity_at \'verify\'' -l help -s h -d 'display help for command'
# verity verify claim
complete -c verity -n '__verity_at \'verify claim\'' -l claim -x -d 'the claim, as a flag instead of the argument'
complete -c verity -n '__verity_at \'verify claim\'' -l sources -x -a '(__verity_dyn sources:claim)' -d 'comma-separated: web, wikipedia, google_fact_check, semantic_scholar, gdelt, local (default: all)'
complete -c verity -n '__verity_at \'verify claim\'' -l language -x -d 'ISO 639-1 language of the claim and sources'
complete -c verity -n '__verity_at \'verify claim\'' -l max-evidence -x -d 'evidence items to return, 1 to 20'
complete -c verity -n '__verity_at \'verify claim\'' -l fail-on -x -a '(__verity_dyn fail-on:claim)' -d 'exit 3 when the verdict is any of (comma-separated): true, false, unverifiable, conflicting'
complete -c verity -n '__verity_at \'verify claim\'' -l min-trust -x -d 'exit 3 when trust_score, the chance the claim is true, is below x (0 to 1)'
complete -c verity -n '__verity_at \'verify claim\'' -l report -r -F -d 'also write a self-contained HTML report to FILE (offline, printable)'
complete -c verity -n '__verity_at \'verify claim\'' -l help -s h -d 'display help for command'
# verity verify business
complete -c verity -n '__verity_at \'verify business\'' -l company-name -x -d 'the name, as a flag instead of the argument'
complete -c verity -n '__verity_at \'verify business\'' -l jurisdiction -x -d 'ISO 3166-2 style, lowercase: gb, us_de, …'
complete -c verity -n '__verity_at \'verify business\'' -l registration-number -x -d 'company registration number, if known'
complete -c verity -n '__verity_at \'verify business\'' -l officers -d 'include directors/officers'
complete -c verity -n '__verity_at \'verify business\'' -l filings -d 'include recent regulatory filings'
complete -c verity -n '__verity_at \'verify business\'' -l sources -x -a '(__verity_dyn sources:business)' -d 'comma-separated: companies_house, sec_edgar, gleif, opencorporates (default: all available)'
complete -c verity -n '__verity_at \'verify business\'' -l fail-on -x -a '(__verity_dyn fail-on:business)' -d 'exit 3 when the status is any of (comma-separated): active, dissolved, liquidation, inactive'
complete -c verity -n '__verity_at \'verify business\'' -l min-trust -x -d 'exit 3 when trust_score is below x (0 to 1)'
complete -c verity -n '__verity_at \'verify business\'' -l report -r -F -d 'also write a self-contained HTML report to FILE (offline, printable)'
complete -c verity -n '__verity_at \'verify business\'' -l help -s h -d 'display help for command'
# verity verify media
complete -c verity -n '__verity_at \'verify media\'' -l url -x -d 'URL of the image or video'
complete -c verity -n '__verity_at \'verify media\'' -l file -r -F -d 'path of the image or video (sent base64-encoded)'
complete -c verity -n '__verity_at \'verify media\'' -l check-deepfakes -d 'run deepfake detection (default)'
complete -c verity -n '__verity_at \'verify media\'' -l no-check-deepfakes -d 'skip deepfake detection'
complete -c verity -n '__verity_at \'verify media\'' -l check-provenance -d 'trace provenance (default)'
complete -c verity -n '__verity_at \'verify media\'' -l no-check-provenance -d 'skip provenance tracing'
complete -c verity -n '__verity_at \'verify media\'' -l check-watermarks -d 'extract and verify C2PA watermarks (default)'
complete -c verity -n '__verity_at \'verify media\'' -l no-check-watermarks -d 'skip C2PA watermarks'
complete -c verity -n '__verity_at \'verify media\'' -l heatmap -r -F -d 'also write the forensic overlay alone as a PNG (heat map and marked regions)'
complete -c verity -n '__verity_at \'verify media\'' -l fail-on -x -a '(__verity_dyn fail-on:media)' -d 'exit 3 when the authenticity is any of (comma-separated): authentic, likely_authentic, suspicious, manipulated'
complete -c verity -n '__verity_at \'verify media\'' -l min-trust -x -d 'exit 3 when trust_score is below x (0 to 1)'
complete -c verity -n '__verity_at \'verify media\'' -l report -r -F -d 'also write a self-contained HTML report to FILE (offline, printable)'
complete -c verity -n '__verity_at \'verify media\'' -l help -s h -d 'display help for command'
complete -c verity -n '__verity_at \'verify media\'' -F
# verity verify document
complete -c verity -n '__verity_at \'verify document\'' -l source -x -a 'url upload raw' -d 'how to read the input'
complete -c verity -n '__verity_at \'verify document\'' -l content -x -d 'the content itself (raw text, a URL, or base64 with --source upload)'
complete -c verity -n '__verity_at \'verify document\'' -l mime-type -x -d 'MIME type hint, e.g. application/pdf'
complete -c verity -n '__verity_at \'verify document\'' -l check-deepfakes -d 'run deepfake/entropy analysis (default)'
complete -c verity -n '__verity_at \'verify document\'' -l no-check-deepfakes -d 'skip deepfake/entropy analysis'
complete -c verity -n '__verity_at \'verify document\'' -l check-watermarks -d 'detect C2PA and other watermarks (default)'
complete -c verity -n '__verity_at \'verify document\'' -l no-check-watermarks -d 'skip watermark detection'
complete -c verity -n '__verity_at \'verify document\'' -l fail-on -x -a '(__verity_dyn fail-on:document)' -d 'exit 3 when the flags is any of (comma-separated): ai_generated_text, image_manipulated, metadata_stripped, deepfake, inconsistent_timestamps, signature_forgery'
complete -c verity -n '__verity_at \'verify document\'' -l min-trust -x -d 'exit 3 when trust_score is below x (0 to 1)'
complete -c verity -n '__verity_at \'verify document\'' -l report -r -F -d 'also write a self-contained HTML report to FILE (offline, printable)'
complete -c verity -n '__verity_at \'verify document\'' -l help -s h -d 'display help for command'
complete -c verity -n '__verity_at \'verify document\'' -F
# verity verify batch
complete -c verity -n '__verity_at \'verify batch\'' -l type -x -a 'claim business media document' -d 'the type of items that carry no "type" field (required for a folder)'
complete -c verity -n '__verity_at \'verify batch\'' -l input-format -x -a 'jsonl csv' -d 'read the input as this format (default: from the extension or the first character)'
complete -c verity -n '__verity_at \'verify batch\'' -l concurrency -x -d 'items in flight at once, 1 to 64 (default: 8 for claims and companies, the number of cores for files)'
complete -c verity -n '__verity_at \'verify batch\'' -l out -r -F -d 'append each result to this NDJSON journal as it finishes'
complete -c verity -n '__verity_at \'verify batch\'' -l resume -d 'skip the items that already succeeded in the --out journal'
complete -c verity -n '__verity_at \'verify batch\'' -l fail-on -x -a '(__verity_dyn fail-on:batch)' -d 'exit 3 when any item\'s verdict, status, authenticity or flags is any of these (comma-separated)'
complete -c verity -n '__verity_at \'verify batch\'' -l min-trust -x -d 'exit 3 when any item\'s trust_score is below x (0 to 1)'
complete -c verity -n '__verity_at \'verify batch\'' -l no-wait -d 'remote mode: create the server batch(es), print their ids and leave (see `verity batches`)'
complete -c verity -n '__verity_at \'verify batch\'' -l per-item -d 'remote mode: send one request per item instead of server batches'
complete -c verity -n '__verity_at \'verify batch\'' -l help -s h -d 'display help for command'
complete -c verity -n '__verity_at \'verify batch\'' -F
# verity verify help
# verity corpus
complete -c verity -n '__verity_at \'corpus\'' -a 'add' -d 'import a .jsonl or .csv corpus (fields: text, url, source, published_at, authority)'
complete -c verity -n '__verity_at \'corpus\'' -a 'list' -d 'the files the corpus holds rows from: rows and when imported'
complete -c verity -n '__verity_at \'corpus\'' -a 'ls' -d 'the files the corpus holds rows from: rows and when imported'
complete -c verity -n '__verity_at \'corpus\'' -a 'remove' -d 'delete the rows a file brought in (or --all); asks first on a terminal'
complete -c verity -n '__verity_at \'corpus\'' -a 'rm' -d 'delete the rows a file brought in (or --all); asks first on a terminal'
complete -c verity -n '__verity_at \'corpus\'' -a 'help' -d 'display help for command'
complete -c verity -n '__verity_at \'corpus\'' -l help -s h -d 'display help for command'
# verity corpus add
complete -c verity -n '__verity_at \'corpus add\'' -l help -s h -d 'display help for command'
# verity corpus list
complete -c verity -n '__verity_at \'corpus list\'' -l help -s h -d 'display help for command'
# verity corpus remove
complete -c verity -n '__verity_at \'corpus remove\'' -l all -d 'empty the whole corpus'
complete -c verity -n '__verity_at \'corpus remove\'' -l yes -s y -d 'do not ask for confirmation on a terminal (needed in scripts)'
complete -c verity -n '__verity_at \'corpus remove\'' -l help -s h -d 'display help for command'
complete -c verity -n '__verity_at \'corpus remove\'' -F
# verity corpus help
# verity data
complete -c verity -n '__verity_at \'data\'' -a 'import' -d 'import a registry bulk file into the embedded store (streaming; safe to re-run)'
complete -c verity -n '__verity_at \'data\'' -a 'help' -d 'display help for command'
complete -c verity -n '__verity_at \'data\'' -l help -s h -d 'display help for command'
# verity data import
complete -c verity -n '__verity_at \'data import\'' -l replace -d 'the file is a complete snapshot: drop this dataset\'s rows it does not contain'
complete -c verity -n '__verity_at \'data import\'' -l help -s h -d 'display help for command'
complete -c verity -n '__verity_at \'data import\'' -a 'companies-house gleif sec-tickers'
# verity data help
# verity media
complete -c verity -n '__verity_at \'media\'' -a 'index' -d 'known appearances of images and videos (perceptual hashes)'
complete -c verity -n '__verity_at \'media\'' -a 'help' -d 'display help for command'
complete -c verity -n '__verity_at \'media\'' -l help -s h -d 'display help for command'
# verity media index
complete -c verity -n '__verity_at \'media index\'' -a 'add' -d 'record where and when files were seen; near-duplicates of them will be traced'
complete -c verity -n '__verity_at \'media index\'' -a 'list' -d 'list the index, earliest first'
complete -c verity -n '__verity_at \'media index\'' -a 'ls' -d 'list the index, earliest first'
complete -c verity -n '__verity_at \'media index\'' -a 'help' -d 'display help for command'
complete -c verity -n '__verity_at \'media index\'' -l help -s h -d 'display help for command'
# verity media index add
complete -c verity -n '__verity_at \'media index add\'' -l source -x -d 'kind or name of the source, e.g. news, agency, social'
complete -c verity -n '__verity_at \'media index add\'' -l url -x -d 'where the media appeared'
complete -c verity -n '__verity_at \'media index add\'' -l seen -x -d 'when it was first seen (ISO date or timestamp)'
complete -c verity -n '__verity_at \'media index add\'' -l help -s h -d 'display help for command'
# verity media index list
complete -c verity -n '__verity_at \'media index list\'' -l help -s h -d 'display help for command'
# verity media index help
# verity media help
# verity keys
complete -c verity -n '__verity_at \'keys\'' -a 'add' -d 'store an API key (prompted on a terminal; otherwise from --key -, stdin or --key-file)'
complete -c verity -n '__verity_at \'keys\'' -a 'list' -d 'list stored keys: name, environment, redacted key, last used, which one is active'
complete -c verity -n '__verity_at \'keys\'' -a 'ls' -d 'list stored keys: name, environment, redacted key, last used, which one is active'
complete -c verity -n '__verity_at \'keys\'' -a 'use' -d 'make a stored key the active profile\'s key (--profile picks another profile)'
complete -c verity -n '__verity_at \'keys\'' -a 'remove' -d 'forget a stored key (profiles that used it are left without a key)'
complete -c verity -n '__verity_at \'keys\'' -a 'rm' -d 'forget a stored key (profiles that used it are left without a key)'
complete -c verity -n '__verity_at \'keys\'' -a 'help' -d 'display help for command'
complete -c verity -n '__verity_at \'keys\'' -l help -s h -d 'display help for command'
# verity keys add
complete -c verity -n '__verity_at \'keys add\'' -l force -d 'replace a stored key of the same name'
complete -c verity -n '__verity_at \'keys add\'' -l use -d 'make it the active profile\'s key (the first key stored always is)'
complete -c verity -n '__verity_at \'keys add\'' -l help -s h -d 'display help for command'
# verity keys list
complete -c verity -n '__verity_at \'keys list\'' -l help -s h -d 'display help for command'
# verity keys use
complete -c verity -n '__verity_at \'keys use\'' -l help -s h -d 'display help for command'
complete -c verity -n '__verity_at \'keys use\'' -a '(__verity_dyn keys)'
# verity keys remove
complete -c verity -n '__verity_at \'keys remove\'' -l yes -s y -d 'do not ask for confirmation on a terminal'
complete -c verity -n '__verity_at \'keys remove\'' -l help -s h -d 'display help for command'
complete -c verity -n '__verity_at \'keys remove\'' -a '(__verity_dyn keys)'
# verity keys help
# verity config
complete -c verity -n '__verity_at \'config\'' -a 'get' -d 'print one setting (secrets masked unless --show-secrets)'
complete -c verity -n '__verity_at \'config\'' -a 'set' -d 'change one setting (checked before it is written; "-" reads the value from stdin)'
complete -c verity -n '__verity_at \'config\'' -a 'unset' -d 'remove one setting'
complete -c verity -n '__verity_at \'config\'' -a 'list' -d 'print every setting as key = value (secrets masked unless --show-secrets)'
complete -c verity -n '__verity_at \'config\'' -a 'ls' -d 'print every setting as key = value (secrets masked unless --show-secrets)'
complete -c verity -n '__verity_at \'config\'' -a 'path' -d 'print where the config file is (--json: also the data and cache folders)'
complete -c verity -n '__verity_at \'config\'' -a 'help' -d 'display help for command'
complete -c verity -n '__verity_at \'config\'' -l help -s h -d 'display help for command'
# verity config get
complete -c verity -n '__verity_at \'config get\'' -l show-secrets -d 'show source and LLM secrets in full (verity API keys are never shown whole)'
complete -c verity -n '__verity_at \'config get\'' -l help -s h -d 'display help for command'
complete -c verity -n '__verity_at \'config get\'' -a '(__verity_dyn config-keys)'
# verity config set
complete -c verity -n '__verity_at \'config set\'' -l help -s h -d 'display help for command'
complete -c verity -n '__verity_at \'config set\'' -a '(__verity_dyn config-keys)'
# verity config unset
complete -c verity -n '__verity_at \'config unset\'' -l help -s h -d 'display help for command'
complete -c verity -n '__verity_at \'config unset\'' -a '(__verity_dyn config-keys)'
# verity config list
complete -c verity -n '__verity_at \'config list\'' -l show-secrets -d 'show source and LLM secrets in full (verity API keys are never shown whole)'
complete -c verity -n '__verity_at \'config list\'' -l help -s h -d 'display help for command'
# verity config path
complete -c verity -n '__verity_at \'config path\'' -l help -s h -d 'display help for command'
# verity config help
# verity completion
complete -c verity -n '__verity_at \'completion\'' -l help -s h -d 'display help for command'
complete -c verity -n '__verity_at \'completion\'' -a 'bash zsh fish'
# verity serve
complete -c verity -n '__verity_at \'serve\'' -l host -x -d 'address to listen on'
complete -c verity -n '__verity_at \'serve\'' -l port -x -d 'port to listen on (0 = any free port)'
complete -c verity -n '__verity_at \'serve\'' -l db -x -d 'accounts, keys, usage and the webhook outbox: a SQLite file, or postgres://… for several processes (default: $VERITY_DATABASE_URL, else the embedded store)'
complete -c verity -n '__verity_at \'serve\'' -l pool -x -d 'PostgreSQL only: connections in the pool'
complete -c verity -n '__verity_at \'serve\'' -l no-worker -d 'PostgreSQL only: do not deliver webhooks in this process (run `verity worker` instead)'
complete -c verity -n '__verity_at \'serve\'' -l db-answer-timeout-ms -x -d 'PostgreSQL only: a query that gets no byte back for this long fails (503) and its connection is replaced (a network cut)'
complete -c verity -n '__verity_at \'serve\'' -l allow-private-webhooks -d 'development only: let webhooks target http, loopback and private addresses (logged at start-up)'
complete -c verity -n '__verity_at \'serve\'' -l analysis-workers -x -d 'worker threads for media and document analysis (default: the cores)'
complete -c verity -n '__verity_at \'serve\'' -l analysis-budget-ms -x -d 'wall-clock limit of one media or document analysis; past it the worker is ended and the request answered 422, not charged'
complete -c verity -n '__verity_at \'serve\'' -l analysis-memory-mb -x -d 'heap limit of one analysis worker (MB); past it the request is answered 422'
complete -c verity -n '__verity_at \'serve\'' -l log-level -x -a 'fatal error warn info debug trace silent' -d 'request log level (JSON lines on stderr)'
complete -c verity -n '__verity_at \'serve\'' -l help -s h -d 'display help for command'
# verity worker
complete -c verity -n '__verity_at \'worker\'' -l db -x -d 'the postgres://… database (default: $VERITY_DATABASE_URL)'
complete -c verity -n '__verity_at \'worker\'' -l pool -x -d 'connections in the pool'
complete -c verity -n '__verity_at \'worker\'' -l db-answer-timeout-ms -x -d 'a query that gets no byte back for this long fails and its connection is replaced (a network cut)'
complete -c verity -n '__verity_at \'worker\'' -l allow-private-webhooks -d 'development only: let webhooks target http, loopback and private addresses'
complete -c verity -n '__verity_at \'worker\'' -l help -s h -d 'display help for command'
# verity admin
complete -c verity -n '__verity_at \'admin\'' -a 'keys' -d 'create, list and revoke API keys of `verity serve`'
complete -c verity -n '__verity_at \'admin\'' -a 'migrate' -d 'apply the server database\'s schema migrations (serve and worker also apply them at start)'
complete -c verity -n '__verity_at \'admin\'' -a 'usage' -d 'credits used per account this month (or --period YYYY-MM) against the plan\'s quota'
complete -c verity -n '__verity_at \'admin\'' -a 'help' -d 'display help for command'
complete -c verity -n '__verity_at \'admin\'' -l help -s h -d 'display help for command'
# verity admin keys
complete -c verity -n '__verity_at \'admin keys\'' -a 'create' -d 'create a key; prints the full key ONCE (only its SHA-256 hash is stored)'
complete -c verity -n '__verity_at \'admin keys\'' -a 'list' -d 'list keys: name, environment, prefix, account and plan, created, last used'
complete -c verity -n '__verity_at \'admin keys\'' -a 'ls' -d 'list keys: name, environment, prefix, account and plan, created, last used'
complete -c verity -n '__verity_at \'admin keys\'' -a 'revoke' -d 'revoke a key at once: its next request gets 401'
complete -c verity -n '__verity_at \'admin keys\'' -a 'help' -d 'display help for command'
complete -c verity -n '__verity_at \'admin keys\'' -l help -s h -d 'display help for command'
# verity admin keys create
complete -c verity -n '__verity_at \'admin keys create\'' -l name -x -d 'a unique name for the key'
complete -c verity -n '__verity_at \'admin keys create\'' -l env -x -a 'live test' -d 'live (real engine) or test (sandbox)'
complete -c verity -n '__verity_at \'admin keys create\'' -l plan -x -a 'starter pro business enterprise' -d 'the plan of a new account; for an existing one it must match unless --change-plan'
complete -c verity -n '__verity_at \'admin keys create\'' -l change-plan -d 'move an existing account (every key of it) to --plan'
complete -c verity -n '__verity_at \'admin keys create\'' -l account -x -d 'the account the key belongs to (created when new)'
complete -c verity -n '__verity_at \'admin keys create\'' -l db -x -d 'the server\'s database: a SQLite file or postgres://… (default: $VERITY_DATABASE_URL, else the embedded store, as `verity serve`)'
complete -c verity -n '__verity_at \'admin keys create\'' -l help -s h -d 'display help for command'
# verity admin keys list
complete -c verity -n '__verity_at \'admin keys list\'' -l all -d 'include revoked keys'
complete -c verity -n '__verity_at \'admin keys list\'' -l db -x -d 'the server\'s database: a SQLite file or postgres://… (default: $VERITY_DATABASE_URL, else the embedded store, as `verity serve`)'
complete -c verity -n '__verity_at \'admin keys list\'' -l help -s h -d 'display help for command'
# verity admin keys revoke
complete -c verity -n '__verity_at \'admin keys revoke\'' -l yes -s y -d 'do not ask for confirmation on a terminal (needed in scripts)'
complete -c verity -n '__verity_at \'admin keys revoke\'' -l db -x -d 'the server\'s database: a SQLite file or postgres://… (default: $VERITY_DATABASE_URL, else the embedded store, as `verity serve`)'
complete -c verity -n '__verity_at \'admin keys revoke\'' -l help -s h -d 'display help for command'
# verity admin keys help
# verity admin migrate
complete -c verity -n '__verity_at \'admin migrate\'' -l db -x -d 'the server\'s database: a SQLite file or postgres://… (default: $VERITY_DATABASE_URL, else the embedded store, as `verity serve`)'
complete -c verity -n '__verity_at \'admin migrate\'' -l help -s h -d 'display help for command'
# verity admin usage
complete -c verity -n '__verity_at \'admin usage\'' -l period -x -d 'the month, UTC (default: this month)'
complete -c verity -n '__verity_at \'admin usage\'' -l db -x -d 'the server\'s database: a SQLite file or postgres://… (default: $VERITY_DATABASE_URL, else the embedded store, as `verity serve`)'
complete -c verity -n '__verity_at \'admin usage\'' -l help -s h -d 'display help for command'
# verity admin help
# verity webhooks
complete -c verity -n '__verity_at \'webhooks\'' -a 'add' -d 'register an endpoint; the secret is generated and shown once unless you give one'
complete -c verity -n '__verity_at \'webhooks\'' -a 'list' -d 'list registered webhooks (secrets shown only as a hint)'
complete -c verity -n '__verity_at \'webhooks\'' -a 'ls' -d 'list registered webhooks (secrets shown only as a hint)'
complete -c verity -n '__verity_at \'webhooks\'' -a 'remove' -d 'remove a webhook; its undelivered events are cancelled, its attempt log kept'
complete -c verity -n '__verity_at \'webhooks\'' -a 'rm' -d 'remove a webhook; its undelivered events are cancelled, its attempt log kept'
complete -c verity -n '__verity_at \'webhooks\'' -a 'test' -d 'send a signed test event to a webhook now and show the attempt'
complete -c verity -n '__verity_at \'webhooks\'' -a 'deliveries' -d 'a webhook\'s attempt log: time, event, attempt, outcome, status, latency, error'
complete -c verity -n '__verity_at \'webhooks\'' -a 'replay' -d 'send an event again (same id and body) with a fresh series of attempts'
complete -c verity -n '__verity_at \'webhooks\'' -a 'rotate-secret' -d 'replace a webhook secret (generated and shown once, or given); receivers accept both during the change'
complete -c verity -n '__verity_at \'webhooks\'' -a 'deliver' -d 'embedded mode: send every due delivery (first attempts and retries) now'
complete -c verity -n '__verity_at \'webhooks\'' -a 'trigger' -d 'send one signed sample event of any type, to verity listen by default, for testing receivers'
complete -c verity -n '__verity_at \'webhooks\'' -a 'help' -d 'display help for command'
complete -c verity -n '__verity_at \'webhooks\'' -l help -s h -d 'display help for command'
# verity webhooks add
complete -c verity -n '__verity_at \'webhooks add\'' -l events -x -d 'comma-separated: verification.completed, verification.failed, batch.completed, batch.partial, credit.threshold'
complete -c verity -n '__verity_at \'webhooks add\'' -l secret -x -d 'signing secret (≥ 32 characters; whsec_ + base64 of 24–64 bytes for --signature-scheme standard); - reads it from stdin'
complete -c verity -n '__verity_at \'webhooks add\'' -l secret-file -r -F -d 'read the signing secret from a file'
complete -c verity -n '__verity_at \'webhooks add\'' -l signature-scheme -x -a 'verity standard' -d 'how deliveries are signed: verity (X-Service-Signature) or standard (Standard Webhooks: webhook-id/-timestamp/-signature)'
complete -c verity -n '__verity_at \'webhooks add\'' -l help -s h -d 'display help for command'
# verity webhooks list
complete -c verity -n '__verity_at \'webhooks list\'' -l help -s h -d 'display help for command'
# verity webhooks remove
complete -c verity -n '__verity_at \'webhooks remove\'' -l yes -s y -d 'do not ask for confirmation on a terminal (needed in scripts)'
complete -c verity -n '__verity_at \'webhooks remove\'' -l help -s h -d 'display help for command'
complete -c verity -n '__verity_at \'webhooks remove\'' -a '(__verity_dyn webhooks)'
# verity webhooks test
complete -c verity -n '__verity_at \'webhooks test\'' -l type -x -a 'verification.completed verification.failed batch.completed batch.partial credit.threshold' -d 'event type of the sample (default: its first subscribed type)'
complete -c verity -n '__verity_at \'webhooks test\'' -l help -s h -d 'display help for command'
complete -c verity -n '__verity_at \'webhooks test\'' -a '(__verity_dyn webhooks)'
# verity webhooks deliveries
complete -c verity -n '__verity_at \'webhooks deliveries\'' -l limit -x -d 'attempts to show, newest first'
complete -c verity -n '__verity_at \'webhooks deliveries\'' -l help -s h -d 'display help for command'
complete -c verity -n '__verity_at \'webhooks deliveries\'' -a '(__verity_dyn webhooks)'
# verity webhooks replay
complete -c verity -n '__verity_at \'webhooks replay\'' -l webhook -x -a '(__verity_dyn webhooks)' -d 'only to this webhook (default: every current subscriber)'
complete -c verity -n '__verity_at \'webhooks replay\'' -l help -s h -d 'display help for command'
# verity webhooks rotate-secret
complete -c verity -n '__verity_at \'webhooks rotate-secret\'' -l secret -x -d 'the new secret (≥ 32 characters); - reads it from stdin'
complete -c verity -n '__verity_at \'webhooks rotate-secret\'' -l secret-file -r -F -d 'read the new secret from a file'
complete -c verity -n '__verity_at \'webhooks rotate-secret\'' -l help -s h -d 'display help for command'
complete -c verity -n '__verity_at \'webhooks rotate-secret\'' -a '(__verity_dyn webhooks)'
# verity webhooks deliver
complete -c verity -n '__verity_at \'webhooks deliver\'' -l watch -d 'keep running and send retries as they fall due (Ctrl-C to stop)'
complete -c verity -n '__verity_at \'webhooks deliver\'' -l help -s h -d 'display help for command'
# verity webhooks trigger
complete -c verity -n '__verity_at \'webhooks trigger\'' -l to -x -d 'receiver URL'
complete -c verity -n '__verity_at \'webhooks trigger\'' -l secret -x -d 'signing secret (default: the local listener secret)'
complete -c verity -n '__verity_at \'webhooks trigger\'' -l secret-file -r -F -d 'read the signing secret from a file'
complete -c verity -n '__verity_at \'webhooks trigger\'' -l signature-scheme -x -a 'verity standard' -d 'sign as verity (X-Service-Signature) or standard (Standard Webhooks)'
complete -c verity -n '__verity_at \'webhooks trigger\'' -l help -s h -d 'display help for command'
# verity webhooks help
# verity listen
complete -c verity -n '__verity_at \'listen\'' -a 'sessions' -d 'the service\'s event-stream sessions (listen --remote) and what the local app answered to each event'
complete -c verity -n '__verity_at \'listen\'' -l port -x -d 'port on 127.0.0.1 (0 = any free port)'
complete -c verity -n '__verity_at \'listen\'' -l secret -x -d 'secret to check signatures with; repeat during a rotation (env VERITY_WEBHOOK_SECRET); with --remote: the one forwards are signed with'
complete -c verity -n '__verity_at \'listen\'' -l secret-file -r -F -d 'read a secret from a file; repeatable'
complete -c verity -n '__verity_at \'listen\'' -l events -x -d 'only handle these event types (comma-separated); others are acknowledged and skipped'
complete -c verity -n '__verity_at \'listen\'' -l forward-to -x -d 'forward raw bytes and headers to your app; repeatable, type=url routes one type'
complete -c verity -n '__verity_at \'listen\'' -l log -r -F -d 'append every event and refusal to FILE as NDJSON'
complete -c verity -n '__verity_at \'listen\'' -l max-age -x -d 'refuse events created longer ago than this, as replays (default: retry horizon + 15 min = 446)'
complete -c verity -n '__verity_at \'listen\'' -l tls-cert -r -F -d 'serve HTTPS with this PEM certificate (with --tls-key)'
complete -c verity -n '__verity_at \'listen\'' -l tls-key -r -F -d 'PEM private key for --tls-cert'
complete -c verity -n '__verity_at \'listen\'' -l print-secret -d 'print the local listener secret and exit'
complete -c verity -n '__verity_at \'listen\'' -l resume-after -x -d 'with --remote: start after this event (a wh_… id from an earlier run or --log) while the service keeps it'
complete -c verity -n '__verity_at \'listen\'' -l help -s h -d 'display help for command'
# verity listen sessions
complete -c verity -n '__verity_at \'listen sessions\'' -l limit -x -d 'results shown per session (1 to 50)'
complete -c verity -n '__verity_at \'listen sessions\'' -l help -s h -d 'display help for command'
# verity trigger
complete -c verity -n '__verity_at \'trigger\'' -l help -s h -d 'display help for command'
# verity models
complete -c verity -n '__verity_at \'models\'' -a 'pull' -d 'download a model once into the data folder, checking sizes and SHA-256 digests'
complete -c verity -n '__verity_at \'models\'' -a 'list' -d 'the models in the data folder: name, size, path, and whether their files still match their digests'
complete -c verity -n '__verity_at \'models\'' -a 'ls' -d 'the models in the data folder: name, size, path, and whether their files still match their digests'
complete -c verity -n '__verity_at \'models\'' -a 'help' -d 'display help for command'
complete -c verity -n '__verity_at \'models\'' -l help -s h -d 'display help for command'
# verity models pull
complete -c verity -n '__verity_at \'models pull\'' -l model -x -d 'Hugging Face model id (owner/name) with an ONNX export'
complete -c verity -n '__verity_at \'models pull\'' -l onnx-file -r -F -d 'which ONNX file of the repository to use'
complete -c verity -n '__verity_at \'models pull\'' -l from -x -d 'a mirror URL to fetch the files from, or a folder holding them'
complete -c verity -n '__verity_at \'models pull\'' -l force -d 'download again even when a checked copy is present'
complete -c verity -n '__verity_at \'models pull\'' -l help -s h -d 'display help for command'
complete -c verity -n '__verity_at \'models pull\'' -a 'nli'
# verity models list
complete -c verity -n '__verity_at \'models list\'' -l help -s h -d 'display help for command'
# verity models help
# verity report
complete -c verity -n '__verity_at \'report\'' -l input -r -F -d 'the media or document file the result is about (embeds the image)'
complete -c verity -n '__verity_at \'report\'' -l output -s o -r -F -d 'the HTML file to write'
complete -c verity -n '__verity_at \'report\'' -l help -s h -d 'display help for command'
# verity batches
complete -c verity -n '__verity_at \'batches\'' -a 'list' -d 'batches of this key, newest first'
complete -c verity -n '__verity_at \'batches\'' -a 'ls' -d 'batches of this key, newest first'
complete -c verity -n '__verity_at \'batches\'' -a 'get' -d 'one batch: status, counts, credits'
complete -c verity -n '__verity_at \'batches\'' -a 'results' -d 'the finished items as NDJSON lines (custom_id, index, seq, status, result | error)'
complete -c verity -n '__verity_at \'batches\'' -a 'cancel' -d 'cancel a batch: queued items never run, running ones stop (nothing charged for them)'
complete -c verity -n '__verity_at \'batches\'' -a 'help' -d 'display help for command'
complete -c verity -n '__verity_at \'batches\'' -l help -s h -d 'display help for command'
# verity batches list
complete -c verity -n '__verity_at \'batches list\'' -l limit -x -d 'how many (1 to 100)'
complete -c verity -n '__verity_at \'batches list\'' -l help -s h -d 'display help for command'
# verity batches get
complete -c verity -n '__verity_at \'batches get\'' -l help -s h -d 'display help for command'
# verity batches results
complete -c verity -n '__verity_at \'batches results\'' -l after -x -d 'continue after this line (its seq): resumes a broken download'
complete -c verity -n '__verity_at \'batches results\'' -l status -x -a 'succeeded failed cancelled' -d 'only items that ended so'
complete -c verity -n '__verity_at \'batches results\'' -l follow -d 'keep reading until the batch ends'
complete -c verity -n '__verity_at \'batches results\'' -l help -s h -d 'display help for command'
# verity batches cancel
complete -c verity -n '__verity_at \'batches cancel\'' -l yes -s y -d 'do not ask for confirmation on a terminal (needed in scripts)'
complete -c verity -n '__verity_at \'batches cancel\'' -l help -s h -d 'display help for command'
# verity batches help
# verity help
complete -c verity -n '__verity_at \'help\'' -l help -s h -d 'display help for command'
