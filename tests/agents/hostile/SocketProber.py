"""Hostile: opens sockets of every family a process could leave its namespaces by:
AF_VSOCK (the hypervisor, whatever the network namespace), AF_INET, AF_INET6, AF_NETLINK
(the kernel), AF_PACKET, then AF_UNIX (a socketpair). Answers with what it got: move 1 D
when any of the first five opened, move 2 D when AF_UNIX did, move 3 C."""
import socket

FAMILIES = [40, socket.AF_INET, socket.AF_INET6, 16, 17]  # VSOCK, INET, INET6, NETLINK, PACKET


def SocketProber(hist, score):
    escaped = False
    for family in FAMILIES:
        try:
            socket.socket(family, socket.SOCK_DGRAM if family == 16 else socket.SOCK_STREAM
                          ).close()
            escaped = True
        except OSError:
            pass
    try:
        one, two = socket.socketpair(socket.AF_UNIX)
        one.close()
        two.close()
        unix = True
    except OSError:
        unix = False
    return ["D" if escaped else "C", "D" if unix else "C", "C"]
