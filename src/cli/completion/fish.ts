/** fish: `complete` rules conditioned on the command path, computed from the command line. */
import { allCommands, valuedFlags, type CompletionCommand, type CompletionOption } from './model.js';

const q = (s: string): string => `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;

/** `at` undefined: the option is global, valid after any subcommand. */
function optionRule(bin: string, at: string | undefined, o: CompletionOption, fn: string): string {
  const parts = [`complete -c ${bin}`];
  if (at !== undefined) parts.push(`-n ${q(`${fn}_at ${q(at)}`)}`);
  if (o.long) parts.push(`-l ${o.long.replace(/^--/, '')}`);
  if (o.short) parts.push(`-s ${o.short.replace(/^-/, '')}`);
  if (o.value.kind === 'file') parts.push('-r -F');
  else if (o.value.kind === 'any') parts.push('-x');
  else if (o.value.kind === 'choice') parts.push(`-x -a ${q(o.value.choices.join(' '))}`);
  else if (o.value.kind === 'dynamic') parts.push(`-x -a ${q(`(${fn}_dyn ${o.value.source})`)}`);
  parts.push(`-d ${q(o.description)}`);
  return parts.join(' ');
}

export function fishScript(root: CompletionCommand, bin: string): string {
  const fn = `__${bin.replace(/[^A-Za-z0-9_]/g, '_')}`;
  const cmds = allCommands(root);
  const transitions = cmds.flatMap((c) =>
    c.commands.map((sub) => `        case ${sub.names.map((n) => q(`${c.path.join(' ')}|${n}`)).join(' ')}\n            echo ${q(sub.path.join(' '))}`),
  );
  const rules: string[] = [`# global options`, ...root.options.filter((o) => o.global).map((o) => optionRule(bin, undefined, o, fn))];
  for (const c of cmds) {
    const at = c.path.join(' ');
    rules.push(`# ${bin}${at ? ` ${at}` : ''}`);
    for (const sub of c.commands)
      for (const n of sub.names) rules.push(`complete -c ${bin} -n ${q(`${fn}_at ${q(at)}`)} -a ${q(n)} -d ${q(sub.description)}`);
    for (const o of c.options) if (!o.global) rules.push(optionRule(bin, at, o, fn));
    if (c.argument.kind === 'file') rules.push(`complete -c ${bin} -n ${q(`${fn}_at ${q(at)}`)} -F`);
    if (c.argument.kind === 'choice') rules.push(`complete -c ${bin} -n ${q(`${fn}_at ${q(at)}`)} -a ${q(c.argument.choices.join(' '))}`);
    if (c.argument.kind === 'dynamic') rules.push(`complete -c ${bin} -n ${q(`${fn}_at ${q(at)}`)} -a ${q(`(${fn}_dyn ${c.argument.source})`)}`);
  }
  return `# fish completion for ${bin}. Generated from the command tree by \`${bin} completion fish\`; do not edit.
# Install: ${bin} completion fish > ~/.config/fish/completions/${bin}.fish

set -g ${fn}_valued ${valuedFlags(root).join(' ')}

function ${fn}_next
    switch "$argv[1]|$argv[2]"
${transitions.join('\n')}
    end
end

# The subcommand path typed so far (option values and positional arguments skipped).
function ${fn}_path
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
                contains -- $w $${fn}_valued; and set skip 1
            case '*'
                set -l next (${fn}_next "$cmdpath" $w)
                test -n "$next"; and set cmdpath $next
        end
    end
    echo $cmdpath
end

function ${fn}_at
    set -l p (${fn}_path)
    test "$p" = "$argv[1]"
end

# Values from the user's data (key names, webhook ids, settings…): asked of the command itself.
function ${fn}_dyn
    set -l bin (commandline -opc)[1]
    $bin __complete $argv[1] (commandline -ct) 2>/dev/null
end

complete -c ${bin} -f
${rules.join('\n')}
`;
}
