# bash completion for verity. Generated from the command tree by `verity completion bash`; do not edit.
# Install: verity completion bash > ~/.local/share/bash-completion/completions/verity
#      or: source <(verity completion bash)

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
    '|trigger') REPLY='trigger' ;;
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
    'listen|sessions') REPLY='listen sessions' ;;
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
      subs='verify corpus data media keys config completion serve worker admin webhooks listen trigger models report batches help'
      opts='--version -V --json --remote --local --key --key-file --test --live --profile --quiet -q --verbose -v --no-color --help -h'
      vals='--remote=@any --key=@dyn:keys --key-file=@file --profile=@dyn:profiles'
      arg='@none' ;;
    'verify')
      subs='claim business media document batch help'
      opts='--help -h --json --remote --local --key --key-file --test --live --profile --quiet -q --verbose -v --no-color'
      vals='--remote=@any --key=@dyn:keys --key-file=@file --profile=@dyn:profiles'
      arg='@none' ;;
    'verify claim')
      subs=''
      opts='--claim --sources --language --max-evidence --fail-on --min-trust --report --help -h --json --remote --local --key --key-file --test --live --profile --quiet -q --verbose -v --no-color'
      vals='--claim=@any --sources=@dyn:sources:claim --language=@any --max-evidence=@any --fail-on=@dyn:fail-on:claim --min-trust=@any --report=@file --remote=@any --key=@dyn:keys --key-file=@file --profile=@dyn:profiles'
      arg='@any' ;;
    'verify business')
      subs=''
      opts='--company-name --jurisdiction --registration-number --officers --filings --sources --fail-on --min-trust --report --help -h --json --remote --local --key --key-file --test --live --profile --quiet -q --verbose -v --no-color'
      vals='--company-name=@any --jurisdiction=@any --registration-number=@any --sources=@dyn:sources:business --fail-on=@dyn:fail-on:business --min-trust=@any --report=@file --remote=@any --key=@dyn:keys --key-file=@file --profile=@dyn:profiles'
      arg='@any' ;;
    'verify media')
      subs=''
      opts='--url --file --check-deepfakes --no-check-deepfakes --check-provenance --no-check-provenance --check-watermarks --no-check-watermarks --heatmap --fail-on --min-trust --report --help -h --json --remote --local --key --key-file --test --live --profile --quiet -q --verbose -v --no-color'
      vals='--url=@any --file=@file --heatmap=@file --fail-on=@dyn:fail-on:media --min-trust=@any --report=@file --remote=@any --key=@dyn:keys --key-file=@file --profile=@dyn:profiles'
      arg='@file' ;;
    'verify document')
      subs=''
      opts='--source --content --mime-type --check-deepfakes --no-check-deepfakes --check-watermarks --no-check-watermarks --fail-on --min-trust --report --help -h --json --remote --local --key --key-file --test --live --profile --quiet -q --verbose -v --no-color'
      vals='--source=url,upload,raw --content=@any --mime-type=@any --fail-on=@dyn:fail-on:document --min-trust=@any --report=@file --remote=@any --key=@dyn:keys --key-file=@file --profile=@dyn:profiles'
      arg='@file' ;;
    'verify batch')
      subs=''
      opts='--type --input-format --concurrency --out --resume --fail-on --min-trust --no-wait --per-item --help -h --json --remote --local --key --key-file --test --live --profile --quiet -q --verbose -v --no-color'
      vals='--type=claim,business,media,document --input-format=jsonl,csv --concurrency=@any --out=@file --fail-on=@dyn:fail-on:batch --min-trust=@any --remote=@any --key=@dyn:keys --key-file=@file --profile=@dyn:profiles'
      arg='@file' ;;
    'verify help')
      subs=''
      opts='--json --remote --local --key --key-file --test --live --profile --quiet -q --verbose -v --no-color'
      vals='--remote=@any --key=@dyn:keys --key-file=@file --profile=@dyn:profiles'
      arg='@any' ;;
    'corpus')
      subs='add list ls remove rm help'
      opts='--help -h --json --remote --local --key --key-file --test --live --profile --quiet -q --verbose -v --no-color'
      vals='--remote=@any --key=@dyn:keys --key-file=@file --profile=@dyn:profiles'
      arg='@none' ;;
    'corpus add')
      subs=''
      opts='--help -h --json --remote --local --key --key-file --test --live --profile --quiet -q --verbose -v --no-color'
      vals='--remote=@any --key=@dyn:keys --key-file=@file --profile=@dyn:profiles'
      arg='@any' ;;
    'corpus list')
      subs=''
      opts='--help -h --json --remote --local --key --key-file --test --live --profile --quiet -q --verbose -v --no-color'
      vals='--remote=@any --key=@dyn:keys --key-file=@file --profile=@dyn:profiles'
      arg='@none' ;;
    'corpus remove')
      subs=''
      opts='--all --yes -y --help -h --json --remote --local --key --key-file --test --live --profile --quiet -q --verbose -v --no-color'
      vals='--remote=@any --key=@dyn:keys --key-file=@file --profile=@dyn:profiles'
      arg='@file' ;;
    'corpus help')
      subs=''
      opts='--json --remote --local --key --key-file --test --live --profile --quiet -q --verbose -v --no-color'
      vals='--remote=@any --key=@dyn:keys --key-file=@file --profile=@dyn:profiles'
      arg='@any' ;;
    'data')
      subs='import help'
      opts='--help -h --json --remote --local --key --key-file --test --live --profile --quiet -q --verbose -v --no-color'
      vals='--remote=@any --key=@dyn:keys --key-file=@file --profile=@dyn:profiles'
      arg='@none' ;;
    'data import')
      subs=''
      opts='--replace --help -h --json --remote --local --key --key-file --test --live --profile --quiet -q --verbose -v --no-color'
      vals='--remote=@any --key=@dyn:keys --key-file=@file --profile=@dyn:profiles'
      arg='companies-house,gleif,sec-tickers' ;;
    'data help')
      subs=''
      opts='--json --remote --local --key --key-file --test --live --profile --quiet -q --verbose -v --no-color'
      vals='--remote=@any --key=@dyn:keys --key-file=@file --profile=@dyn:profiles'
      arg='@any' ;;
    'media')
      subs='index help'
      opts='--help -h --json --remote --local --key --key-file --test --live --profile --quiet -q --verbose -v --no-color'
      vals='--remote=@any --key=@dyn:keys --key-file=@file --profile=@dyn:profiles'
      arg='@none' ;;
    'media index')
      subs='add list ls help'
      opts='--help -h --json --remote --local --key --key-file --test --live --profile --quiet -q --verbose -v --no-color'
      vals='--remote=@any --key=@dyn:keys --key-file=@file --profile=@dyn:profiles'
      arg='@none' ;;
    'media index add')
      subs=''
      opts='--source --url --seen --help -h --json --remote --local --key --key-file --test --live --profile --quiet -q --verbose -v --no-color'
      vals='--source=@any --url=@any --seen=@any --remote=@any --key=@dyn:keys --key-file=@file --profile=@dyn:profiles'
      arg='@any' ;;
    'media index list')
      subs=''
      opts='--help -h --json --remote --local --key --key-file --test --live --profile --quiet -q --verbose -v --no-color'
      vals='--remote=@any --key=@dyn:keys --key-file=@file --profile=@dyn:profiles'
      arg='@none' ;;
    'media index help')
      subs=''
      opts='--json --remote --local --key --key-file --test --live --profile --quiet -q --verbose -v --no-color'
      vals='--remote=@any --key=@dyn:keys --key-file=@file --profile=@dyn:profiles'
      arg='@any' ;;
    'media help')
      subs=''
      opts='--json --remote --local --key --key-file --test --live --profile --quiet -q --verbose -v --no-color'
      vals='--remote=@any --key=@dyn:keys --key-file=@file --profile=@dyn:profiles'
      arg='@any' ;;
    'keys')
      subs='add list ls use remove rm help'
      opts='--help -h --json --remote --local --key --key-file --test --live --profile --quiet -q --verbose -v --no-color'
      vals='--remote=@any --key=@dyn:keys --key-file=@file --profile=@dyn:profiles'
      arg='@none' ;;
    'keys add')
      subs=''
      opts='--force --use --help -h --json --remote --local --key --key-file --test --live --profile --quiet -q --verbose -v --no-color'
      vals='--remote=@any --key=@dyn:keys --key-file=@file --profile=@dyn:profiles'
      arg='@any' ;;
    'keys list')
      subs=''
      opts='--help -h --json --remote --local --key --key-file --test --live --profile --quiet -q --verbose -v --no-color'
      vals='--remote=@any --key=@dyn:keys --key-file=@file --profile=@dyn:profiles'
      arg='@none' ;;
    'keys use')
      subs=''
      opts='--help -h --json --remote --local --key --key-file --test --live --profile --quiet -q --verbose -v --no-color'
      vals='--remote=@any --key=@dyn:keys --key-file=@file --profile=@dyn:profiles'
      arg='@dyn:keys' ;;
    'keys remove')
      subs=''
      opts='--yes -y --help -h --json --remote --local --key --key-file --test --live --profile --quiet -q --verbose -v --no-color'
      vals='--remote=@any --key=@dyn:keys --key-file=@file --profile=@dyn:profiles'
      arg='@dyn:keys' ;;
    'keys help')
      subs=''
      opts='--json --remote --local --key --key-file --test --live --profile --quiet -q --verbose -v --no-color'
      vals='--remote=@any --key=@dyn:keys --key-file=@file --profile=@dyn:profiles'
      arg='@any' ;;
    'config')
      subs='get set unset list ls path help'
      opts='--help -h --json --remote --local --key --key-file --test --live --profile --quiet -q --verbose -v --no-color'
      vals='--remote=@any --key=@dyn:keys --key-file=@file --profile=@dyn:profiles'
      arg='@none' ;;
    'config get')
      subs=''
      opts='--show-secrets --help -h --json --remote --local --key --key-file --test --live --profile --quiet -q --verbose -v --no-color'
      vals='--remote=@any --key=@dyn:keys --key-file=@file --profile=@dyn:profiles'
      arg='@dyn:config-keys' ;;
    'config set')
      subs=''
      opts='--help -h --json --remote --local --key --key-file --test --live --profile --quiet -q --verbose -v --no-color'
      vals='--remote=@any --key=@dyn:keys --key-file=@file --profile=@dyn:profiles'
      arg='@dyn:config-keys' ;;
    'config unset')
      subs=''
      opts='--help -h --json --remote --local --key --key-file --test --live --profile --quiet -q --verbose -v --no-color'
      vals='--remote=@any --key=@dyn:keys --key-file=@file --profile=@dyn:profiles'
      arg='@dyn:config-keys' ;;
    'config list')
      subs=''
      opts='--show-secrets --help -h --json --remote --local --key --key-file --test --live --profile --quiet -q --verbose -v --no-color'
      vals='--remote=@any --key=@dyn:keys --key-file=@file --profile=@dyn:profiles'
      arg='@none' ;;
    'config path')
      subs=''
      opts='--help -h --json --remote --local --key --key-file --test --live --profile --quiet -q --verbose -v --no-color'
      vals='--remote=@any --key=@dyn:keys --key-file=@file --profile=@dyn:profiles'
      arg='@none' ;;
    'config help')
      subs=''
      opts='--json --remote --local --key --key-file --test --live --profile --quiet -q --verbose -v --no-color'
      vals='--remote=@any --key=@dyn:keys --key-file=@file --profile=@dyn:profiles'
      arg='@any' ;;
    'completion')
      subs=''
      opts='--help -h --json --remote --local --key --key-file --test --live --profile --quiet -q --verbose -v --no-color'
      vals='--remote=@any --key=@dyn:keys --key-file=@file --profile=@dyn:profiles'
      arg='bash,zsh,fish' ;;
    'serve')
      subs=''
      opts='--host --port --db --pool --no-worker --db-answer-timeout-ms --allow-private-webhooks --analysis-workers --analysis-budget-ms --analysis-memory-mb --log-level --help -h --json --remote --local --key --key-file --test --live --profile --quiet -q --verbose -v --no-color'
      vals='--host=@any --port=@any --db=@any --pool=@any --db-answer-timeout-ms=@any --analysis-workers=@any --analysis-budget-ms=@any --analysis-memory-mb=@any --log-level=fatal,error,warn,info,debug,trace,silent --remote=@any --key=@dyn:keys --key-file=@file --profile=@dyn:profiles'
      arg='@none' ;;
    'worker')
      subs=''
      opts='--db --pool --db-answer-timeout-ms --allow-private-webhooks --help -h --json --remote --local --key --key-file --test --live --profile --quiet -q --verbose -v --no-color'
      vals='--db=@any --pool=@any --db-answer-timeout-ms=@any --remote=@any --key=@dyn:keys --key-file=@file --profile=@dyn:profiles'
      arg='@none' ;;
    'admin')
      subs='keys migrate usage help'
      opts='--help -h --json --remote --local --key --key-file --test --live --profile --quiet -q --verbose -v --no-color'
      vals='--remote=@any --key=@dyn:keys --key-file=@file --profile=@dyn:profiles'
      arg='@none' ;;
    'admin keys')
      subs='create list ls revoke help'
      opts='--help -h --json --remote --local --key --key-file --test --live --profile --quiet -q --verbose -v --no-color'
      vals='--remote=@any --key=@dyn:keys --key-file=@file --profile=@dyn:profiles'
      arg='@none' ;;
    'admin keys create')
      subs=''
      opts='--name --env --plan --change-plan --account --db --help -h --json --remote --local --key --key-file --test --live --profile --quiet -q --verbose -v --no-color'
      vals='--name=@any --env=live,test --plan=starter,pro,business,enterprise --account=@any --db=@any --remote=@any --key=@dyn:keys --key-file=@file --profile=@dyn:profiles'
      arg='@none' ;;
    'admin keys list')
      subs=''
      opts='--all --db --help -h --json --remote --local --key --key-file --test --live --profile --quiet -q --verbose -v --no-color'
      vals='--db=@any --remote=@any --key=@dyn:keys --key-file=@file --profile=@dyn:profiles'
      arg='@none' ;;
    'admin keys revoke')
      subs=''
      opts='--yes -y --db --help -h --json --remote --local --key --key-file --test --live --profile --quiet -q --verbose -v --no-color'
      vals='--db=@any --remote=@any --key=@dyn:keys --key-file=@file --profile=@dyn:profiles'
      arg='@any' ;;
    'admin keys help')
      subs=''
      opts='--json --remote --local --key --key-file --test --live --profile --quiet -q --verbose -v --no-color'
      vals='--remote=@any --key=@dyn:keys --key-file=@file --profile=@dyn:profiles'
      arg='@any' ;;
    'admin migrate')
      subs=''
      opts='--db --help -h --json --remote --local --key --key-file --test --live --profile --quiet -q --verbose -v --no-color'
      vals='--db=@any --remote=@any --key=@dyn:keys --key-file=@file --profile=@dyn:profiles'
      arg='@none' ;;
    'admin usage')
      subs=''
      opts='--period --db --help -h --json --remote --local --key --key-file --test --live --profile --quiet -q --verbose -v --no-color'
      vals='--period=@any --db=@any --remote=@any --key=@dyn:keys --key-file=@file --profile=@dyn:profiles'
      arg='@none' ;;
    'admin help')
      subs=''
      opts='--json --remote --local --key --key-file --test --live --profile --quiet -q --verbose -v --no-color'
      vals='--remote=@any --key=@dyn:keys --key-file=@file --profile=@dyn:profiles'
      arg='@any' ;;
    'webhooks')
      subs='add list ls remove rm test deliveries replay rotate-secret deliver trigger help'
      opts='--help -h --json --remote --local --key --key-file --test --live --profile --quiet -q --verbose -v --no-color'
      vals='--remote=@any --key=@dyn:keys --key-file=@file --profile=@dyn:profiles'
      arg='@none' ;;
    'webhooks add')
      subs=''
      opts='--events --secret --secret-file --signature-scheme --help -h --json --remote --local --key --key-file --test --live --profile --quiet -q --verbose -v --no-color'
      vals='--events=@any --secret=@any --secret-file=@file --signature-scheme=verity,standard --remote=@any --key=@dyn:keys --key-file=@file --profile=@dyn:profiles'
      arg='@any' ;;
    'webhooks list')
      subs=''
      opts='--help -h --json --remote --local --key --key-file --test --live --profile --quiet -q --verbose -v --no-color'
      vals='--remote=@any --key=@dyn:keys --key-file=@file --profile=@dyn:profiles'
      arg='@none' ;;
    'webhooks remove')
      subs=''
      opts='--yes -y --help -h --json --remote --local --key --key-file --test --live --profile --quiet -q --verbose -v --no-color'
      vals='--remote=@any --key=@dyn:keys --key-file=@file --profile=@dyn:profiles'
      arg='@dyn:webhooks' ;;
    'webhooks test')
      subs=''
      opts='--type --help -h --json --remote --local --key --key-file --test --live --profile --quiet -q --verbose -v --no-color'
      vals='--type=verification.completed,verification.failed,batch.completed,batch.partial,credit.threshold --remote=@any --key=@dyn:keys --key-file=@file --profile=@dyn:profiles'
      arg='@dyn:webhooks' ;;
    'webhooks deliveries')
      subs=''
      opts='--limit --help -h --json --remote --local --key --key-file --test --live --profile --quiet -q --verbose -v --no-color'
      vals='--limit=@any --remote=@any --key=@dyn:keys --key-file=@file --profile=@dyn:profiles'
      arg='@dyn:webhooks' ;;
    'webhooks replay')
      subs=''
      opts='--webhook --help -h --json --remote --local --key --key-file --test --live --profile --quiet -q --verbose -v --no-color'
      vals='--webhook=@dyn:webhooks --remote=@any --key=@dyn:keys --key-file=@file --profile=@dyn:profiles'
      arg='@any' ;;
    'webhooks rotate-secret')
      subs=''
      opts='--secret --secret-file --help -h --json --remote --local --key --key-file --test --live --profile --quiet -q --verbose -v --no-color'
      vals='--secret=@any --secret-file=@file --remote=@any --key=@dyn:keys --key-file=@file --profile=@dyn:profiles'
      arg='@dyn:webhooks' ;;
    'webhooks deliver')
      subs=''
      opts='--watch --help -h --json --remote --local --key --key-file --test --live --profile --quiet -q --verbose -v --no-color'
      vals='--remote=@any --key=@dyn:keys --key-file=@file --profile=@dyn:profiles'
      arg='@none' ;;
    'webhooks trigger')
      subs=''
      opts='--to --secret --secret-file --signature-scheme --help -h --json --remote --local --key --key-file --test --live --profile --quiet -q --verbose -v --no-color'
      vals='--to=@any --secret=@any --secret-file=@file --signature-scheme=verity,standard --remote=@any --key=@dyn:keys --key-file=@file --profile=@dyn:profiles'
      arg='@any' ;;
    'webhooks help')
      subs=''
      opts='--json --remote --local --key --key-file --test --live --profile --quiet -q --verbose -v --no-color'
      vals='--remote=@any --key=@dyn:keys --key-file=@file --profile=@dyn:profiles'
      arg='@any' ;;
    'listen')
      subs='sessions'
      opts='--port --secret --secret-file --events --forward-to --log --max-age --tls-cert --tls-key --print-secret --resume-after --help -h --json --remote --local --key --key-file --test --live --profile --quiet -q --verbose -v --no-color'
      vals='--port=@any --secret=@any --secret-file=@file --events=@any --forward-to=@any --log=@file --max-age=@any --tls-cert=@file --tls-key=@file --resume-after=@any --remote=@any --key=@dyn:keys --key-file=@file --profile=@dyn:profiles'
      arg='@none' ;;
    'listen sessions')
      subs=''
      opts='--limit --help -h --json --remote --local --key --key-file --test --live --profile --quiet -q --verbose -v --no-color'
      vals='--limit=@any --remote=@any --key=@dyn:keys --key-file=@file --profile=@dyn:profiles'
      arg='@none' ;;
    'trigger')
      subs=''
      opts='--help -h --json --remote --local --key --key-file --test --live --profile --quiet -q --verbose -v --no-color'
      vals='--remote=@any --key=@dyn:keys --key-file=@file --profile=@dyn:profiles'
      arg='@any' ;;
    'models')
      subs='pull list ls help'
      opts='--help -h --json --remote --local --key --key-file --test --live --profile --quiet -q --verbose -v --no-color'
      vals='--remote=@any --key=@dyn:keys --key-file=@file --profile=@dyn:profiles'
      arg='@none' ;;
    'models pull')
      subs=''
      opts='--model --onnx-file --from --force --help -h --json --remote --local --key --key-file --test --live --profile --quiet -q --verbose -v --no-color'
      vals='--model=@any --onnx-file=@file --from=@any --remote=@any --key=@dyn:keys --key-file=@file --profile=@dyn:profiles'
      arg='nli' ;;
    'models list')
      subs=''
      opts='--help -h --json --remote --local --key --key-file --test --live --profile --quiet -q --verbose -v --no-color'
      vals='--remote=@any --key=@dyn:keys --key-file=@file --profile=@dyn:profiles'
      arg='@none' ;;
    'models help')
      subs=''
      opts='--json --remote --local --key --key-file --test --live --profile --quiet -q --verbose -v --no-color'
      vals='--remote=@any --key=@dyn:keys --key-file=@file --profile=@dyn:profiles'
      arg='@any' ;;
    'report')
      subs=''
      opts='--input --output -o --help -h --json --remote --local --key --key-file --test --live --profile --quiet -q --verbose -v --no-color'
      vals='--input=@file --output=@file -o=@file --remote=@any --key=@dyn:keys --key-file=@file --profile=@dyn:profiles'
      arg='@any' ;;
    'batches')
      subs='list ls get results cancel help'
      opts='--help -h --json --remote --local --key --key-file --test --live --profile --quiet -q --verbose -v --no-color'
      vals='--remote=@any --key=@dyn:keys --key-file=@file --profile=@dyn:profiles'
      arg='@none' ;;
    'batches list')
      subs=''
      opts='--limit --help -h --json --remote --local --key --key-file --test --live --profile --quiet -q --verbose -v --no-color'
      vals='--limit=@any --remote=@any --key=@dyn:keys --key-file=@file --profile=@dyn:profiles'
      arg='@none' ;;
    'batches get')
      subs=''
      opts='--help -h --json --remote --local --key --key-file --test --live --profile --quiet -q --verbose -v --no-color'
      vals='--remote=@any --key=@dyn:keys --key-file=@file --profile=@dyn:profiles'
      arg='@any' ;;
    'batches results')
      subs=''
      opts='--after --status --follow --help -h --json --remote --local --key --key-file --test --live --profile --quiet -q --verbose -v --no-color'
      vals='--after=@any --status=succeeded,failed,cancelled --remote=@any --key=@dyn:keys --key-file=@file --profile=@dyn:profiles'
      arg='@any' ;;
    'batches cancel')
      subs=''
      opts='--yes -y --help -h --json --remote --local --key --key-file --test --live --profile --quiet -q --verbose -v --no-color'
      vals='--remote=@any --key=@dyn:keys --key-file=@file --profile=@dyn:profiles'
      arg='@any' ;;
    'batches help')
      subs=''
      opts='--json --remote --local --key --key-file --test --live --profile --quiet -q --verbose -v --no-color'
      vals='--remote=@any --key=@dyn:keys --key-file=@file --profile=@dyn:profiles'
      arg='@any' ;;
    'help')
      subs=''
      opts='--help -h --json --remote --local --key --key-file --test --live --profile --quiet -q --verbose -v --no-color'
      vals='--remote=@any --key=@dyn:keys --key-file=@file --profile=@dyn:profiles'
      arg='@any' ;;
  esac
}

_verity() {
  local cur="${COMP_WORDS[COMP_CWORD]}" prev= cmdpath= w i skip=0 subs= opts= vals= arg= spec kind=
  ((COMP_CWORD > 0)) && prev="${COMP_WORDS[COMP_CWORD-1]}"
  local valued=' --account --after --analysis-budget-ms --analysis-memory-mb --analysis-workers --claim --company-name --concurrency --content --db --db-answer-timeout-ms --env --events --fail-on --file --forward-to --from --heatmap --host --input --input-format --jurisdiction --key --key-file --language --limit --log --log-level --max-age --max-evidence --mime-type --min-trust --model --name --onnx-file --out --output --period --plan --pool --port --profile --registration-number --remote --report --resume-after --secret --secret-file --seen --signature-scheme --source --sources --status --tls-cert --tls-key --to --type --url --webhook -o '
  for ((i = 1; i < COMP_CWORD; i++)); do
    w="${COMP_WORDS[i]}"
    if ((skip)); then skip=0; continue; fi
    case "$w" in
      --*=*) ;;
      -*) [[ $valued == *" $w "* ]] && skip=1 ;;
      *) _verity_next "$cmdpath" "$w"; [[ -n $REPLY ]] && cmdpath=$REPLY ;;
    esac
  done
  _verity_data "$cmdpath"
  for spec in $vals; do
    [[ ${spec%%=*} == "$prev" ]] && kind=${spec#*=}
  done
  COMPREPLY=()
  if [[ -n $kind ]]; then
    case "$kind" in
      @file) compopt -o filenames 2>/dev/null; COMPREPLY=($(compgen -f -- "$cur")) ;;
      @dyn:*) local IFS=$'
'; COMPREPLY=($("${COMP_WORDS[0]}" __complete "${kind#@dyn:}" "$cur" 2>/dev/null)) ;;
      @any | @none) ;;
      *) COMPREPLY=($(compgen -W "${kind//,/ }" -- "$cur")) ;;
    esac
    return 0
  fi
  if [[ $cur == -* ]]; then
    COMPREPLY=($(compgen -W "$opts" -- "$cur"))
    return 0
  fi
  COMPREPLY=($(compgen -W "$subs" -- "$cur"))
  case "$arg" in
    @file) compopt -o filenames 2>/dev/null; COMPREPLY+=($(compgen -f -- "$cur")) ;;
    @dyn:*) local IFS=$'
'; COMPREPLY+=($("${COMP_WORDS[0]}" __complete "${arg#@dyn:}" "$cur" 2>/dev/null)) ;;
    @any | @none) ;;
    *) COMPREPLY+=($(compgen -W "${arg//,/ }" -- "$cur")) ;;
  esac
  return 0
}

complete -F _verity verity
