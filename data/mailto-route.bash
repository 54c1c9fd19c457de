# bash completion for mailto-route(1): commands, each command's options, outbox and
# draft IDs. Installed by `make install` as
# $(PREFIX)/share/bash-completion/completions/mailto-route, where bash-completion loads
# it on first use; `source` it to try it by hand. Needs nothing but bash itself.
#
# The options of each command are the ones `mailto-route COMMAND --help` lists (a test
# compares them). IDs come from `mailto-route outbox list --json` and
# `mailto-route drafts list --json`, asked of the mailto-route being completed.

_mailto_route_commands="open send compose check parse copy register unregister portal outbox drafts log account route webmail help"

# The options of command $1, one string.
_mailto_route_options() {
    case $1 in
        open) echo "--local --xdg-email --json --help" ;;
        parse) echo "--json --help" ;;
        copy) echo "--json --help" ;;
        compose) echo "--json --editor --sheet --help" ;;
        send) echo "--to --cc --bcc --subject --body --body-file --html --attach --from --account --direct --handoff --json --help" ;;
        check) echo "--json --offline --help" ;;
        register) echo "--force --help" ;;
        unregister | portal) echo "--help" ;;
        outbox | drafts | route) echo "--json --help" ;;
        log) echo "--stats --count --json --help" ;;
        webmail) echo "--profile --dry-run --json --help" ;;
        account) echo "--account --host --port --security --user --password-stdin --json --help" ;;
    esac
}

# The IDs `mailto-route $2 list --json` names ($1 is the mailto-route to ask), one a
# line. Only plain IDs (letters, digits, '.', '_', '-'), which need no quoting.
_mailto_route_ids() {
    local program=$1 store=$2
    "$program" "$store" list --json 2>/dev/null |
        grep -o '"id": "[A-Za-z0-9._-]*"' | cut -d '"' -f 4
}

# For `mailto-route $2` ($1: the mailto-route to ask): its action first (one of $3), then
# an ID of its store for the actions that take one ($4); the rest of the arguments are the
# words already given after the command. $current is the caller's word being completed.
_mailto_route_action() {
    local program=$1 store=$2 actions=$3 taking=$4
    shift 4
    if (($# == 0)); then
        mapfile -t COMPREPLY < <(compgen -W "$actions" -- "$current")
    elif (($# == 1)) && [[ " $taking " == *" $1 "* ]]; then
        mapfile -t COMPREPLY < <(compgen -W "$(_mailto_route_ids "$program" "$store")" -- "$current")
    fi
}

_mailto_route() {
    local current=${COMP_WORDS[COMP_CWORD]}
    local previous=${COMP_WORDS[COMP_CWORD - 1]}
    local program=${COMP_WORDS[0]}
    COMPREPLY=()

    # The command: the first word after mailto-route; --check stands for check.
    local command="" index=1
    while ((index < COMP_CWORD)); do
        case ${COMP_WORDS[index]} in
            --check) command=check; break ;;
            -*) ;;
            *) command=${COMP_WORDS[index]}; break ;;
        esac
        ((index++))
    done

    if [[ -z $command ]]; then
        if [[ $current == -* ]]; then
            mapfile -t COMPREPLY < <(compgen -W "--help --version --check" -- "$current")
        else
            mapfile -t COMPREPLY < <(compgen -W "$_mailto_route_commands" -- "$current")
        fi
        return
    fi

    # Values of options: files where a file is wanted, nothing to offer elsewhere.
    case $previous in
        --attach | --body-file)
            mapfile -t COMPREPLY < <(compgen -f -- "$current")
            compopt -o filenames 2>/dev/null
            return ;;
        --to | --cc | --bcc | --subject | --body | --count | --from | --account | --host | --port | --user | --profile) return ;;
        --security)
            mapfile -t COMPREPLY < <(compgen -W "tls starttls" -- "$current")
            return ;;
    esac

    if [[ $current == -* ]]; then
        mapfile -t COMPREPLY < <(compgen -W "$(_mailto_route_options "$command")" -- "$current")
        return
    fi

    # The words after the command that are not options: an action, then its ID.
    local words=() word
    for word in "${COMP_WORDS[@]:index+1:COMP_CWORD-index-1}"; do
        [[ $word == -* ]] || words+=("$word")
    done
    case $command in
        help)
            ((${#words[@]} == 0)) && mapfile -t COMPREPLY < <(compgen -W "${_mailto_route_commands% help}" -- "$current") ;;
        outbox) _mailto_route_action "$program" outbox "list show flush watch retry drop" "show retry drop" "${words[@]}" ;;
        drafts) _mailto_route_action "$program" drafts "list send drop" "send drop" "${words[@]}" ;;
        account) ((${#words[@]} == 0)) && mapfile -t COMPREPLY < <(compgen -W "add" -- "$current") ;;
        route) ((${#words[@]} == 0)) && mapfile -t COMPREPLY < <(compgen -W "show reset" -- "$current") ;;
        portal) ((${#words[@]} == 0)) && mapfile -t COMPREPLY < <(compgen -W "status enable disable" -- "$current") ;;
        webmail) ((${#words[@]} == 0)) && mapfile -t COMPREPLY < <(compgen -W "import" -- "$current") ;;
    esac
}

complete -F _mailto_route mailto-route
