/** zsh: a native completion function (`_describe` with descriptions, `_files` for paths). */
import { allCommands, dispatchFunctions, flagsOf, shQuote, valuedFlags, valueSpec, type CompletionCommand } from './model.js';

const spec = valueSpec;
const q = shQuote;
/** `name:description` for _describe; a colon inside the name must be escaped. */
const item = (name: string, description: string): string => q(`${name.replace(/:/g, '\\:')}:${description}`);

export function zshScript(root: CompletionCommand, bin: string): string {
  const fn = `_${bin.replace(/[^A-Za-z0-9_]/g, '_')}`;
  const cmds = allCommands(root);
  const data = cmds.map((c) => {
    const subs = c.commands.flatMap((s) => s.names.map((n) => item(n, s.description)));
    const opts = c.options.flatMap((o) => flagsOf(o).map((f) => item(f, o.description)));
    const vals = c.options.flatMap((o) => (o.value.kind === 'none' ? [] : flagsOf(o).map((f) => q(`${f}=${spec(o.value)}`))));
    return [
      `    ${q(c.path.join(' '))})`,
      `      subs=(${subs.join(' ')})`,
      `      opts=(${opts.join(' ')})`,
      `      vals=(${vals.join(' ')})`,
      `      arg=${q(spec(c.argument))} ;;`,
    ].join('\n');
  });
  return `#compdef ${bin}
# zsh completion for ${bin}. Generated from the command tree by \`${bin} completion zsh\`; do not edit.
# Install: ${bin} completion zsh > "\${fpath[1]}/_${bin}"   (then restart zsh)
#      or: source <(${bin} completion zsh)

${dispatchFunctions(fn, cmds, data)}

${fn}() {
  local cmdpath= w i skip=0 arg= kind= v
  local -a subs opts vals
  local valued=${q(` ${valuedFlags(root).join(' ')} `)}
  for ((i = 2; i < CURRENT; i++)); do
    w=\${words[i]}
    if ((skip)); then skip=0; continue; fi
    case "$w" in
      --*=*) ;;
      -*) [[ $valued == *" $w "* ]] && skip=1 ;;
      *) ${fn}_next "$cmdpath" "$w"; [[ -n $REPLY ]] && cmdpath=$REPLY ;;
    esac
  done
  ${fn}_data "$cmdpath"
  for v in $vals; do
    [[ \${v%%=*} == "\${words[CURRENT-1]}" ]] && kind=\${v#*=}
  done
  if [[ -n $kind ]]; then
    case "$kind" in
      @file) _files ;;
      @dyn:*) compadd -- \${(f)"$(\${words[1]} __complete \${kind#@dyn:} "$PREFIX" 2>/dev/null)"} ;;
      @any | @none) _message 'value' ;;
      *) compadd -- \${(s:,:)kind} ;;
    esac
    return
  fi
  if [[ $PREFIX == -* ]]; then
    _describe -t options 'option' opts
    return
  fi
  (( \${#subs} )) && _describe -t commands 'command' subs
  case "$arg" in
    @file) _files ;;
    @dyn:*) compadd -- \${(f)"$(\${words[1]} __complete \${arg#@dyn:} "$PREFIX" 2>/dev/null)"} ;;
    @any | @none) ;;
    *) compadd -- \${(s:,:)arg} ;;
  esac
}

if [[ \${zsh_eval_context[-1]} == loadautofunc ]]; then
  ${fn} "$@"
else
  compdef ${fn} ${bin}
fi
`;
}
