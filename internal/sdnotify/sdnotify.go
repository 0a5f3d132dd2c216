// Package sdnotify tells systemd that a service started (sd_notify(3)'s
// READY=1), for a Type=notify unit: one datagram to the socket systemd
// names in NOTIFY_SOCKET. It is the protocol's small core, written out
// rather than taken from a library (go-systemd pulls in D-Bus).
package sdnotify

import (
	"errors"
	"net"
	"strings"
	"sync"
)

// Notifier sends READY=1 once to a service manager's socket. The zero
// value, and one for an empty socket (no service manager listens), send
// nothing.
type Notifier struct {
	socket string
	once   sync.Once
	err    error
}

// New returns a notifier for socket, NOTIFY_SOCKET's value: a path, or an
// abstract socket's name after "@".
func New(socket string) *Notifier { return &Notifier{socket: socket} }

// Ready sends READY=1, with status as STATUS= when it is not "", the first
// time it is called, and returns that send's error every time. Safe for
// concurrent use: a timer and the end of the work may race to call it.
func (n *Notifier) Ready(status string) error {
	if n == nil || n.socket == "" {
		return nil
	}
	n.once.Do(func() {
		msg := "READY=1\n"
		if status != "" {
			msg += "STATUS=" + strings.ReplaceAll(status, "\n", " ") + "\n"
		}
		n.err = send(n.socket, msg)
	})
	return n.err
}

func send(socket, msg string) error {
	addr := &net.UnixAddr{Name: socket, Net: "unixgram"}
	if strings.HasPrefix(socket, "@") {
		addr.Name = "\x00" + socket[1:]
	} else if !strings.HasPrefix(socket, "/") {
		return errors.New("NOTIFY_SOCKET " + socket + " is neither a path nor @NAME")
	}
	conn, err := net.DialUnix("unixgram", nil, addr)
	if err != nil {
		return err
	}
	defer conn.Close()
	_, err = conn.Write([]byte(msg))
	return err
}
