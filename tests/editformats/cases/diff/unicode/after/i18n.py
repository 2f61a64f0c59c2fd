GREETING = "héllo"
NAME = "中文 🎉"
