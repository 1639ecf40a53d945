;; Hostile: opens sockets of every family a process could leave its namespaces by (AF_VSOCK,
;; AF_INET, AF_INET6, AF_NETLINK, AF_PACKET), then AF_UNIX. Move 1 D when any of the first
;; five opened, move 2 D when AF_UNIX did, move 3 C.
(import socket)

(defn HySocketProber [hist score]
  (setv escaped False)
  (for [family [40 socket.AF_INET socket.AF_INET6 16 17]]
    (try
      (.close (socket.socket family (if (= family 16) socket.SOCK_DGRAM socket.SOCK_STREAM)))
      (setv escaped True)
      (except [OSError])))
  (setv unix (try
               (.close (get (socket.socketpair socket.AF_UNIX) 0))
               True
               (except [OSError] False)))
  [(if escaped "D" "C") (if unix "D" "C") "C"])
