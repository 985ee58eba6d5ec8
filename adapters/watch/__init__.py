"""The watch room: processes that look at the store on a timer and send commands
through its door (``flags``: the flag check of ``candidates serve``, Laws 2009 6.8)."""
