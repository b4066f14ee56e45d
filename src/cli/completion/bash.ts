/** bash: `complete -F` with a generated state machine over the command path. */
import { allCommands, dispatchFunctions, flagsOf, shQuote, valuedFlags, valueSpec, type CompletionCommand } from './model.js';

const spec = valueSpec;
const q = shQuote;

export function bashScript(root: CompletionCommand, bin: string): string {
  const fn = `_${bin.replace(/[^A-Za-z0-9_]/g, '_')}`;
  const cmds = allCommands(root);
  const data = cmds.map((c) => {
    const opts = c.options.flatMap(flagsOf);
    const vals = c.options.flatMap((o) => (o.value.kind === 'none' ? [] : flagsOf(o).map((f) => `${f}=${spec(o.value)}`)));
    return [
      `    ${q(c.path.join(' '))})`,
      `      subs=${q(c.commands.flatMap((s) => s.names).join(' '))}`,
      `      opts=${q(opts.join(' '))}`,
      `      vals=${q(vals.join(' '))}`,
      `      arg=${q(spec(c.argument))} ;;`,
    ].join('\n');
  });
  return `# bash completion for ${bin}. Generated from the command tree by \`${bin} completion bash\`; do not edit.
# Install: ${bin} completion bash > ~/.local/share/bash-completion/completions/${bin}
#      or: source <(${bin} completion bash)

${dispatchFunctions(fn, cmds, data)}

${fn}() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" prev= cmdpath= w i skip=0 subs= opts= vals= arg= spec kind=
  ((COMP_CWORD > 0)) && prev="\${COMP_WORDS[COMP_CWORD-1]}"
  local valued=${q(` ${valuedFlags(root).join(' ')} `)}
  for ((i = 1; i < COMP_CWORD; i++)); do
    w="\${COMP_WORDS[i]}"
    if ((skip)); then skip=0; continue; fi
    case "$w" in
      --*=*) ;;
      -*) [[ $valued == *" $w "* ]] && skip=1 ;;
      *) ${fn}_next "$cmdpath" "$w"; [[ -n $REPLY ]] && cmdpath=$REPLY ;;
    esac
  done
  ${fn}_data "$cmdpath"
  for spec in $vals; do
    [[ \${spec%%=*} == "$prev" ]] && kind=\${spec#*=}
  done
  COMPREPLY=()
  if [[ -n $kind ]]; then
    case "$kind" in
      @file) compopt -o filenames 2>/dev/null; COMPREPLY=($(compgen -f -- "$cur")) ;;
      @dyn:*) local IFS=$'\n'; COMPREPLY=($("\${COMP_WORDS[0]}" __complete "\${kind#@dyn:}" "$cur" 2>/dev/null)) ;;
      @any | @none) ;;
      *) COMPREPLY=($(compgen -W "\${kind//,/ }" -- "$cur")) ;;
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
    @dyn:*) local IFS=$'\n'; COMPREPLY+=($("\${COMP_WORDS[0]}" __complete "\${arg#@dyn:}" "$cur" 2>/dev/null)) ;;
    @any | @none) ;;
    *) COMPREPLY+=($(compgen -W "\${arg//,/ }" -- "$cur")) ;;
  esac
  return 0
}

complete -F ${fn} ${bin}
`;
}
